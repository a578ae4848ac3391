/**
 * Programs written for cuts of a model (brief, "Cuts of a model"; docs/author.md): a
 * {@link org.stagecheck.author.ModelSpec} with deterministic {@link org.stagecheck.author.Weights},
 * the {@link org.stagecheck.author.Cut}s of its computation, and
 * {@link org.stagecheck.author.Author#author} which writes a cut's program on one chip or split
 * over several, with its certificate, weights and sample inputs, or a typed refusal.
 */
package org.stagecheck.author;
