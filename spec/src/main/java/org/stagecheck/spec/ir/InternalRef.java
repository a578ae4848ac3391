package org.stagecheck.spec.ir;

/**
 * A buffer that a stage's kind names beyond its ports ({@code ins}/{@code outs}): an index
 * buffer, an offset buffer, a bias or a spill. {@code field} says which, as the JSON path
 * fragment below the stage's {@code kind}. A pass that renumbers buffers must rename these too,
 * or the stage silently points at another buffer (the buffer-remap error class).
 */
public record InternalRef(String field, String buffer) {}
