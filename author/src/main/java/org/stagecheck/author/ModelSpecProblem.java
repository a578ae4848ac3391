package org.stagecheck.author;

/**
 * The first thing wrong with a model spec's values ({@link ModelSpec#problem}), with the spec
 * field that decides it, so that a spec file's refusal names that field's line:column.
 *
 * @param field   the field whose value is refused (name, vocab, ..., normEps), or null when no
 *                single field decides (the weights' total size, a matrix over 2^31 elements)
 * @param message what is wrong, in words
 */
record ModelSpecProblem(String field, String message) {
}
