/**
 * The laws of the cuts as reusable correctness gates (brief, "Cuts of a model"; docs/author.md,
 * "Laws"): composition, prefill/decode consistency, batch invariance and split equivalence, run
 * on the reference interpreter over programs produced by a {@link org.stagecheck.author.laws.CutCompiler}.
 */
package org.stagecheck.author.laws;
