package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A report sent to a character device or to the process's own stream is written into it, never
 * replaced: {@code --sarif /dev/stdout} prints the SARIF whether stdout is a pipe or a file, and
 * {@code /dev/null} and {@code /dev/zero} take it and stay devices. Run in a separate JVM, whose
 * stdout is what the test gives it.
 */
@Tag("slow") // starts a JVM per device
class DeviceOutputTest {
    private static final String PROGRAM = "../examples/tp2-matmul-allreduce.json";
    private static final String CERT = "../examples/certificates/tp2-matmul-allreduce.json";

    @TempDir
    Path tmp;

    private static ProcessBuilder verifyWithSarif(String sarif) {
        return new ProcessBuilder(ChildJvm.command("verify", PROGRAM, "--cert", CERT, "--sarif", sarif));
    }

    private static int finish(Process p) throws InterruptedException {
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return p.exitValue();
    }

    @Test
    void sarifToStdoutOnAPipeIsPrinted() throws Exception {
        Process p = verifyWithSarif("/dev/stdout").redirectError(tmp.resolve("err").toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(finish(p)).as(Files.readString(tmp.resolve("err"))).isZero();
        assertThat(out).contains("\"version\"").contains("2.1.0").contains("verified");
        assertThat(Path.of("/dev/stdout")).isSymbolicLink();
    }

    @Test
    void sarifToStdoutRedirectedToAFileLandsInThatFile() throws Exception {
        Path file = tmp.resolve("out.txt");
        Process p = verifyWithSarif("/dev/stdout").redirectOutput(file.toFile()).redirectError(tmp.resolve("err").toFile()).start();
        assertThat(finish(p)).as(Files.readString(tmp.resolve("err"))).isZero();
        assertThat(Files.readString(file)).contains("\"version\"").contains("2.1.0").contains("verified");
        try (var s = Files.list(tmp)) {
            assertThat(s.map(x -> x.getFileName().toString())).containsExactlyInAnyOrder("out.txt", "err");
        }
    }

    @Test
    void characterDevicesAreWrittenIntoAndStayDevices() throws IOException {
        for (String device : new String[] {"/dev/null", "/dev/zero"}) {
            CliRunner r = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--sarif", device);
            assertThat(r.exit()).as(device + ": " + r.err()).isZero();
            assertThat(Files.isRegularFile(Path.of(device))).as(device + " is still the device").isFalse();
            assertThat(OutputPaths.isCharacterDevice(Path.of(device))).isTrue();
        }
        // a link to a device is written through, the link kept
        Path link = Files.createSymbolicLink(tmp.resolve("discard"), Path.of("/dev/null"));
        CliRunner r = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--sarif", link.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(link).isSymbolicLink();
    }
}
