/**
 * Synthetic Hugging Face model directories with random weights, for tests and benchmarks (no
 * checkpoint is committed): {@link org.stagecheck.author.synth.SyntheticCheckpoint} writes
 * {@code config.json} and the safetensors files of a {@link org.stagecheck.author.synth.SyntheticModel}
 * with the tensor names and torch shapes of the Llama, Mistral, Qwen2 and Qwen3 families and of the
 * mixture-of-experts families Qwen3-MoE, Qwen2-MoE and Mixtral.
 */
package org.stagecheck.author.synth;
