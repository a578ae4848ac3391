package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.synth.SynthFamily;
import org.stagecheck.author.synth.SyntheticModel;
import org.stagecheck.spec.ir.DType;

/**
 * {@code bench checkpoint}'s own logic on a tiny checkpoint (the 1B-class measurement itself takes
 * minutes and gigabytes: docs/author.md): the children really run author and run, the table has a
 * row per step with figures where they are measured, the temporary files go, and a checkpoint
 * left in --dir is found again instead of written again.
 */
@Tag("slow")
class CheckpointBenchTest {
    @TempDir
    Path tmp;

    private static final SyntheticModel TINY = SyntheticModel.builder(SynthFamily.LLAMA).dtype(DType.BF16).seed(5).build();

    private static ChildMeasure children() {
        return new ChildMeasure(ChildJvm.command());
    }

    @Test
    void aTemporaryCheckpointIsWrittenMeasuredOnOneAndTwoChipsAndDeleted() throws Exception {
        Path scratch = Files.createDirectories(tmp.resolve("scratch"));
        List<String> progress = new ArrayList<>();
        String report = CheckpointBench.run(new CheckpointBench.Options(TINY, null, false, 8, List.of(1, 2), scratch), children(), progress::add);
        List<String> rows = report.lines().filter(l -> l.startsWith("| ")).toList();
        assertThat(rows).hasSize(6); // the header, then the checkpoint, author and run on one chip, author and run on two
        assertThat(rows.get(1)).startsWith("| write the checkpoint");
        assertThat(rows.get(2)).startsWith("| `author --cut decode --ctx 8` |").contains("weights referenced, not copied");
        assertThat(rows.get(3)).startsWith("| `run` one decode step |").contains("bind inputs", "execute");
        assertThat(rows.get(4)).startsWith("| `author --cut decode --ctx 8 --tp 2` |");
        assertThat(rows.get(5)).startsWith("| `run` one decode step on 2 chips |");
        if (Files.isDirectory(Path.of("/proc/self"))) {
            // a child's wall time, CPU time and peaks are measured: no '-' in those columns
            for (String row : rows.subList(2, 6)) {
                String[] cells = row.split("\\|");
                for (int c = 2; c <= 5; c++) {
                    assertThat(cells[c].trim()).as(row).matches("[0-9.]+ (s|KiB|MiB|GiB)");
                }
            }
        }
        assertThat(report).contains("max heap");
        assertThat(progress).anyMatch(l -> l.startsWith("checkpoint: writing"));
        try (Stream<Path> left = Files.list(scratch)) {
            assertThat(left).as("the temporary checkpoint and authored files are deleted").isEmpty();
        }
    }

    @Test
    void aCheckpointInDirIsKeptAndFoundByTheNextRun() throws Exception {
        Path dir = tmp.resolve("ckpt");
        Path scratch = Files.createDirectories(tmp.resolve("scratch"));
        CheckpointBench.Options o = new CheckpointBench.Options(TINY, dir, false, 8, List.of(1), scratch);
        CheckpointBench.run(o, children(), l -> { });
        assertThat(dir.resolve("config.json")).isRegularFile();
        assertThat(dir.resolve("model.safetensors")).isRegularFile();
        List<String> progress = new ArrayList<>();
        String again = CheckpointBench.run(o, children(), progress::add);
        assertThat(progress).contains("checkpoint: reusing " + dir.toAbsolutePath());
        assertThat(again).contains("| checkpoint: found in ckpt");
        // another model's checkpoint in the same directory is not taken for this one
        SyntheticModel other = TINY.toBuilder().seed(6).build();
        List<String> third = new ArrayList<>();
        CheckpointBench.run(new CheckpointBench.Options(other, dir, false, 8, List.of(1), scratch), children(), third::add);
        assertThat(third).anyMatch(l -> l.startsWith("checkpoint: writing"));
    }

    @Test
    void aDirectoryHoldingOtherFilesIsNotOverwritten() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("mine"));
        Files.writeString(dir.resolve("model.safetensors"), "not the bench's");
        CheckpointBench.Options o = new CheckpointBench.Options(TINY, dir, false, 8, List.of(1), Files.createDirectories(tmp.resolve("s")));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CheckpointBench.run(o, children(), l -> { }))
                .isInstanceOf(BadInputException.class).hasMessageContaining("holds files but no checkpoint this bench wrote");
        assertThat(Files.readString(dir.resolve("model.safetensors"))).isEqualTo("not the bench's");
    }
}
