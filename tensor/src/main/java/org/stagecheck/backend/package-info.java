/**
 * The seam every implementation of the semantics plugs into: {@link org.stagecheck.backend.Backend}
 * and its {@link org.stagecheck.backend.RunResult}.
 */
package org.stagecheck.backend;
