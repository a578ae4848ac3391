package org.stagecheck.cli;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code golden record} writes its output directory all or nothing ({@link KillHarness}):
 * killed at random moments, it leaves the directory absent, as it was, or complete, and the rerun
 * succeeds and removes what the kill left (docs/format.md, "Output paths"). One class per
 * command, so the test JVMs share the kills out.
 */
@Tag("slow")
class GoldenRecordKillTest extends TinyDecodeStep {
    @Test
    void killedAtRandomMomentsItLeavesNothingOrTheCompleteResult(@TempDir Path scratch) throws Exception {
        new KillHarness("golden record", out -> List.of("golden", "record", tiny() + "/program.json", "--inputs", tiny().toString(), "--trace", "--update",
                "--out", out.toString()), true, 4).check(scratch);
    }
}
