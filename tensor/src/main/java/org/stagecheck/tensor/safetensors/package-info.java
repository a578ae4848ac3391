/**
 * Hugging Face safetensors files: {@link org.stagecheck.tensor.safetensors.SafetensorsFile} reads
 * one file through a memory mapping after checking its header as strictly as the reference
 * implementation does (every byte of the data region belongs to exactly one tensor),
 * {@link org.stagecheck.tensor.safetensors.SafetensorsCheckpoint} reads a model directory (one
 * file or shards with an index), and {@link org.stagecheck.tensor.safetensors.SafetensorsWriter}
 * writes both, streaming one tensor at a time.
 */
package org.stagecheck.tensor.safetensors;
