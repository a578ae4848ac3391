package org.stagecheck.interp;

/**
 * The evaluation precision (docs/semantics.md). {@code F32} is the reference semantics: compute in
 * f32, round once per stage to the output dtype. {@code F64} evaluates every op in double and
 * never rounds to a storage dtype: the "true value" against which rounding error is attributed.
 */
public enum Precision { F32, F64 }
