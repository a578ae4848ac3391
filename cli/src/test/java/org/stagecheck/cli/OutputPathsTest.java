package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Output paths never replace a device, a directory or a file they were not asked to, fail before
 * the work with one line, leave no temporary file, and follow the umask.
 */
@Tag("slow")
class OutputPathsTest {
    @TempDir
    Path tmp;

    private static final String PROGRAM = "../examples/tp2-matmul-allreduce.json";
    private static final String CERT = "../examples/certificates/tp2-matmul-allreduce.json";

    private Set<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).collect(java.util.stream.Collectors.toSet());
        }
    }

    @Test
    void sarifToADeviceADirectoryAMissingDirectoryOrAnUnwritablePlaceIsExitTwoBeforeTheWork() throws Exception {
        Path dir = tmp.resolve("d");
        Files.createDirectories(dir);
        Path fifo = tmp.resolve("fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        String[][] cases = {
                {fifo.toString(), "is not a regular file (a device, pipe or socket)"},
                {dir.toString(), "is a directory"},
                {tmp.resolve("missing/x.sarif").toString(), "the directory " + tmp.resolve("missing") + " does not exist"},
                {"/proc/x.sarif", "cannot write in /proc"},
                {"", "needs a path"},
        };
        for (String[] c : cases) {
            CliRunner r = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--sarif", c[0]);
            assertThat(r.exit()).as(c[0]).isEqualTo(2);
            assertThat(r.err().lines().filter(l -> l.startsWith("error: "))).as(c[0]).hasSize(1);
            assertThat(r.err()).as(c[0]).contains(c[1]).doesNotContain("internal error");
            assertThat(r.out()).as("nothing verified: the check comes first").doesNotContain("discharged");
        }
        assertThat(fifo).as("the pipe is still a pipe").matches(p -> !Files.isRegularFile(p) && !Files.isDirectory(p));
        assertThat(names(dir)).isEmpty();
        assertThat(names(tmp)).containsExactlyInAnyOrder("d", "fifo");
    }

    /** {@code /dev/null} is how a report is discarded: written there and dropped, the device untouched. */
    @Test
    void aReportSentToDevNullIsDiscarded() {
        CliRunner r = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--sarif", "/dev/null");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("verified");
        assertThat(Files.isRegularFile(Path.of("/dev/null"))).as("/dev/null is still the device").isFalse();
        assertThat(Files.exists(Path.of("/dev/.null.stagecheck-tmp"))).isFalse();
    }

    /**
     * A link into /proc (as /dev/stdout is: /proc/self/fd/1, a regular file when stdout is
     * redirected to one) is refused: the atomic rename would replace the link itself.
     */
    @Test
    void aReportThroughALinkToAProcessStreamIsRefusedAndTheLinkKept() throws IOException {
        Path link = Files.createSymbolicLink(tmp.resolve("mystdout"), Path.of("/proc/self/fd/1"));
        CliRunner r = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--sarif", link.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("leads through /proc/self/fd/1").doesNotContain("internal error");
        assertThat(Files.isSymbolicLink(link)).as("the link is still a link").isTrue();
    }

    @Test
    void sarifReplacesARegularFileAtomicallyWithTheUmaskAndLeavesNoTemporaryFile() throws IOException {
        Path f = tmp.resolve("out.sarif");
        Files.writeString(f, "old");
        Files.writeString(tmp.resolve(".out.sarif" + OutputPaths.TMP_SUFFIX), "left by a killed run");
        CliRunner r = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--sarif", f.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(Files.readString(f)).contains("\"version\"").contains("2.1.0");
        assertThat(names(tmp)).containsExactly("out.sarif");
        Path probe = Files.createFile(tmp.resolve("probe"));
        assertThat(Files.getPosixFilePermissions(f)).isEqualTo(Files.getPosixFilePermissions(probe));
    }

    @Test
    void runOutIntoAFileADeviceOrThroughAFileIsExitTwoWithOneLine() throws IOException {
        Path file = tmp.resolve("file");
        Files.writeString(file, "mine");
        for (String out : new String[] {file.toString(), file.resolve("sub").toString(), "/dev/null", "/proc/stagecheck-out"}) {
            CliRunner r = CliRunner.run("run", "../examples/elementwise-chain.json", "--random", "1", "--out", out);
            assertThat(r.exit()).as(out).isEqualTo(2);
            assertThat(r.err()).as(out).startsWith("error: --out ").doesNotContain("internal error");
            assertThat(r.out()).as(out).doesNotContain("ran ");
        }
        assertThat(Files.readString(file)).isEqualTo("mine");
    }

    @Test
    void anOutputFileNameTakenByADirectoryInsideOutIsRefusedBeforeTheRun() throws IOException {
        Path out = tmp.resolve("out");
        Files.createDirectories(out.resolve("y.npy"));
        CliRunner r = CliRunner.run("run", "../examples/elementwise-chain.json", "--random", "1", "--out", out.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(out + " holds files an earlier stagecheck run did not write (y.npy)");
        assertThat(out.resolve("y.npy")).isDirectory();
    }

    @Test
    void aKilledRunsLeftoversAreRemovedByTheNextRunIntoTheSamePlace() throws IOException {
        Path out = tmp.resolve("out");
        Files.createDirectories(out.resolve("trace"));
        Files.writeString(out.resolve(".y.npy" + OutputPaths.TMP_SUFFIX), "half");
        Files.writeString(out.resolve("trace/.00000_load_x.out0.npy" + OutputPaths.TMP_SUFFIX), "half");
        CliRunner r = CliRunner.run("run", "../examples/elementwise-chain.json", "--random", "1", "--trace", "--out", out.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        try (Stream<Path> s = Files.walk(out)) {
            assertThat(s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(OutputPaths.TMP_SUFFIX))).isEmpty();
        }
    }

    @Test
    void aKilledAuthorsTemporaryDirectoryIsReplacedByTheNextAuthorIntoTheSamePlace() throws IOException {
        Path out = tmp.resolve("model");
        Path leftover = tmp.resolve(".model" + OutputPaths.TMP_SUFFIX);
        Files.createDirectories(leftover.resolve("weights"));
        Files.writeString(leftover.resolve("weights/half.npy"), "half");
        CliRunner r = CliRunner.run("author", "--model", "tiny", "--cut", "decode-head", "--out", out.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(names(tmp)).containsExactly("model");
        assertThat(out.resolve("weights/half.npy")).doesNotExist();
    }

    @Test
    void authoredDirectoriesAndRunOutputsFollowTheUmask() throws IOException {
        Path probeDir = Files.createDirectory(tmp.resolve("probe-dir"));
        Path probeFile = Files.createFile(tmp.resolve("probe-file"));
        Set<PosixFilePermission> dirPerms = Files.getPosixFilePermissions(probeDir);
        Set<PosixFilePermission> filePerms = Files.getPosixFilePermissions(probeFile);
        assumeTrue(dirPerms.contains(PosixFilePermission.GROUP_READ) || dirPerms.contains(PosixFilePermission.OTHERS_READ),
                "a umask that leaves group or others something to read");
        Path model = tmp.resolve("model");
        assertThat(CliRunner.run("author", "--model", "tiny", "--cut", "decode-head", "--out", model.toString()).exit()).isZero();
        assertThat(Files.getPosixFilePermissions(model)).isEqualTo(dirPerms);
        assertThat(Files.getPosixFilePermissions(model.resolve("weights"))).isEqualTo(dirPerms);
        assertThat(Files.getPosixFilePermissions(model.resolve("weights/head.npy"))).isEqualTo(filePerms);
        assertThat(Files.getPosixFilePermissions(model.resolve("model.json"))).isEqualTo(filePerms);
        Path out = tmp.resolve("run");
        assertThat(CliRunner.run("run", "../examples/elementwise-chain.json", "--random", "1", "--trace", "--out", out.toString()).exit()).isZero();
        assertThat(Files.getPosixFilePermissions(out.resolve("y.npy"))).isEqualTo(filePerms);
        assertThat(Files.getPosixFilePermissions(out.resolve("tensors.json"))).isEqualTo(filePerms);
        assertThat(Files.getPosixFilePermissions(out.resolve("trace"))).isEqualTo(dirPerms);
    }

    @Test
    void theHelperIsUsableOnItsOwn() throws Exception {
        Path fifo = tmp.resolve("fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        assertThatThrownBy(() -> OutputPaths.file("--junit", fifo)).isInstanceOf(BadInputException.class)
                .hasMessage("--junit " + fifo + " is not a regular file (a device, pipe or socket); stagecheck replaces only regular files");
        Files.delete(fifo);
        OutputPaths.file("--junit", Path.of("/dev/null")).write("<testsuites/>".getBytes());
        OutputPaths.OutputFile f = OutputPaths.file("--html", tmp.resolve("r.html"));
        f.write("<p>".getBytes());
        assertThat(Files.readString(tmp.resolve("r.html"))).isEqualTo("<p>");
        Path full = tmp.resolve("full");
        Files.createDirectories(full);
        Files.writeString(full.resolve("x"), "x");
        assertThatThrownBy(() -> OutputPaths.newDirectory("--out", full)).hasMessageContaining("is a directory that is not empty");
        OutputPaths.OutputDir d = OutputPaths.directory("--out", tmp.resolve("new/deeper"));
        assertThat(tmp.resolve("new")).doesNotExist(); // checked, not yet created
        assertThat(d.create()).isDirectory();
    }
}
