/**
 * The seam every implementation of the semantics plugs into: {@link org.stagecheck.backend.Backend}
 * and its {@link org.stagecheck.backend.RunResult}, and the one check of a run's inputs every
 * backend applies before the first stage, {@link org.stagecheck.backend.Bindings#check} (with
 * {@link org.stagecheck.backend.ParamCheck} for the parameters).
 */
package org.stagecheck.backend;
