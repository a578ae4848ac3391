package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/stagecheck with a stand-in JVM: its stderr filter drops only the incubator warning and
 * never loses a message (a NUL byte, a last line without newline), the exit status passes through,
 * and a signal to the launcher reaches the JVM.
 */
class LauncherTest {
    @TempDir
    Path tmp;

    private Path fakeJdk(String body) throws IOException {
        Path bin = Files.createDirectories(tmp.resolve("jdk/bin"));
        String java = "#!/usr/bin/env bash\n"
                + "case \"$*\" in *XshowSettings*) echo '    java.specification.version = 25' >&2; exit 0;; esac\n" + body;
        Files.writeString(bin.resolve("java"), java);
        Files.writeString(bin.resolve("javac"), "#!/bin/sh\n");
        for (String f : new String[] {"java", "javac"}) {
            Files.setPosixFilePermissions(bin.resolve(f), PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return tmp.resolve("jdk");
    }

    private ProcessBuilder launcher(Path jdk, Path stderr) throws IOException {
        Path jar = Files.writeString(tmp.resolve("fake.jar"), "");
        ProcessBuilder pb = new ProcessBuilder("bash", Path.of("../bin/stagecheck").toAbsolutePath().normalize().toString(), "validate", "x.json");
        pb.environment().put("JAVA_HOME", jdk.toString());
        pb.environment().put("STAGECHECK_JAR", jar.toString());
        pb.redirectError(stderr.toFile());
        pb.redirectOutput(tmp.resolve("stdout").toFile());
        return pb;
    }

    @Test
    void aNulByteOrAnUnfinishedLastLineReachesStderrWholeAndOnlyTheWarningIsDropped() throws Exception {
        Path jdk = fakeJdk("printf 'WARNING: Using incubator modules: jdk.incubator.vector\\n' >&2\n"
                + "printf 'error: tensor a\\0b is bad\\n' >&2\n"
                + "printf 'WARNING: something else\\n' >&2\n"
                + "echo out\n"
                + "printf 'last words' >&2\n"
                + "exit 3\n");
        Path err = tmp.resolve("stderr");
        Process p = launcher(jdk, err).start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(3);
        // read the moment the launcher has exited: nothing may still be on its way
        String text = Files.readString(err, StandardCharsets.ISO_8859_1);
        // grep ends the last line; nothing else is added or lost
        assertThat(text).isEqualTo("error: tensor a\0b is bad\nWARNING: something else\nlast words\n");
        assertThat(Files.readString(tmp.resolve("stdout"))).isEqualTo("out\n");
    }

    @Test
    void aSignalToTheLauncherStopsTheJvm() throws Exception {
        Path pidFile = tmp.resolve("jvm.pid");
        Path jdk = fakeJdk("echo $$ > '" + pidFile + "'\ntrap 'kill $!; echo stopped >&2; exit 143' TERM\nsleep 60 >/dev/null 2>&1 & wait\n");
        Process p = launcher(jdk, tmp.resolve("stderr")).start();
        for (int i = 0; i < 300 && !Files.exists(pidFile); i++) {
            Thread.sleep(20);
        }
        Thread.sleep(200); // let the stand-in set its trap
        long jvm = Long.parseLong(Files.readString(pidFile).strip());
        new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(143);
        assertThat(ProcessHandle.of(jvm).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(Files.readString(tmp.resolve("stderr"))).contains("stopped");
    }
}
