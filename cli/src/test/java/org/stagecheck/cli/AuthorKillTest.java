package org.stagecheck.cli;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code author} writes its output directory all or nothing ({@link KillHarness}):
 * killed at random moments, it leaves the directory absent, as it was, or complete, and the rerun
 * succeeds and removes what the kill left (docs/format.md, "Output paths"). One class per
 * command, so the test JVMs share the kills out.
 */
@Tag("slow")
class AuthorKillTest {
    @Test
    void killedAtRandomMomentsItLeavesNothingOrTheCompleteResult(@TempDir Path scratch) throws Exception {
        new KillHarness("author", out -> List.of("author", "--model", "tiny", "--cut", "decode", "--ctx", "16", "--out", out.toString()),
                false, 4).check(scratch);
    }
}
