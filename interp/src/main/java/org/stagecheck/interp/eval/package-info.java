/**
 * The evaluator's internals (brief, "Reference semantics"; docs/semantics.md): one class per stage
 * kind or op family, registered by the exhaustive switch in {@link org.stagecheck.interp.eval.StageEvaluator},
 * over an explicit {@link org.stagecheck.interp.eval.RunState}. Not an API: use
 * {@link org.stagecheck.interp.Interpreter}. Public only for the bench and the kernel tests.
 */
package org.stagecheck.interp.eval;
