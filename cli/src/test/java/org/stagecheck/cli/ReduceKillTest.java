package org.stagecheck.cli;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code reduce} writes its output directory all or nothing ({@link KillHarness}):
 * killed at random moments, it leaves the directory absent, as it was, or complete, and the rerun
 * succeeds and removes what the kill left (docs/format.md, "Output paths"). One class per
 * command, so the test JVMs share the kills out.
 */
@Tag("slow")
class ReduceKillTest extends TinyDecodeStep {
    private static final String HAS_SLICE = "if grep -qE '\"type\" ?: ?\"slice\"' \"$STAGECHECK_PROGRAM\"; then echo 'found a Slice'; exit 3; fi";

    @Test
    void killedAtRandomMomentsItLeavesNothingOrTheCompleteResult(@TempDir Path scratch) throws Exception {
        new KillHarness("reduce", out -> List.of("reduce", tiny() + "/program.json", "--inputs", tiny().toString(), "--test", HAS_SLICE,
                "--out", out.toString()), false, 4).check(scratch);
    }
}
