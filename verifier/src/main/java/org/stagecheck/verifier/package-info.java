/**
 * The certificate checker (brief, "Certificates"; docs/verifier.md).
 *
 * <p>Entry point: {@link org.stagecheck.verifier.Verifier#verify}, giving a
 * {@link org.stagecheck.verifier.VerifyReport} of collected {@code Diagnostic}s with stable
 * {@link org.stagecheck.verifier.Code}s, one {@link org.stagecheck.verifier.ObligationResult} per
 * obligation, and writers for text, JSON and SARIF 2.1.0 in {@code report}. Sub-packages, one
 * obligation each: {@code shard} (UnreducedShard: the Full/Shard/Partial abstract interpretation),
 * {@code remap} (buffer remap, reference roles), {@code flow} (multicast and ordering);
 * {@code bench} holds the scaling benchmark.
 *
 * <p>The abstract domain per buffer: unwritten | Full | Shard(logical, axis, slices) |
 * Partial(logical, slices, pool) | Tainted (downstream of a reported finding, kept quiet so one bug
 * gives one diagnostic). Partials pass only through linear steps that keep the partition; the
 * rules are written down in {@code GenericAbstraction}, {@code MatMulCheck},
 * {@code AllReduceCheck} and docs/verifier.md.
 */
package org.stagecheck.verifier;
