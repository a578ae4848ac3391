/**
 * Reading a Hugging Face model directory's {@code config.json} into a
 * {@link org.stagecheck.author.ModelSpec} (docs/author.md, "Checkpoints"): the Llama, Mistral,
 * Qwen2 and Qwen3 families, in both the hub (transformers 4) and transformers 5 spellings. A key
 * stagecheck does not understand is refused by name, never ignored.
 */
package org.stagecheck.author.hf;
