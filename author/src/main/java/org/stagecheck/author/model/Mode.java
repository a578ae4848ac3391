package org.stagecheck.author.model;

/**
 * The kind of step a cut belongs to, which fixes how rows, positions and the KV cache work
 * (docs/author.md, "Cuts"): one token with no history; a decode step at parameter {@code pos};
 * a prefill chunk at positions {@code pos..pos+rows-1} of one sequence; a batch of independent
 * sequences, each with its position in the i32 input {@code positions}.
 */
enum Mode {
    FORWARD, DECODE, PREFILL, BATCH
}
