package org.stagecheck.verifier.shard;

import java.util.List;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.verifier.Code;

/**
 * Where a partial was used as a plain value (docs/verifier.md, "Demotion"): a non-linear op, a
 * store to an output, a contraction of two partials. The value is still well defined (the chip's
 * own slices taken through the op), so the analysis goes on with it as a term that names the
 * slices; the finding is made only if that chip-specific value later meets another chip's (an
 * all-reduce, a declared output), and then it is this one, at the stage that used the partial.
 */
record Demotion(Code code, int stageIndex, Stage stage, String field, String buffer, String message, List<String> trail) {}
