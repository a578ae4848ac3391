package org.stagecheck.cuda;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.stagecheck.golden.Golden;
import org.stagecheck.spec.ir.Program;

/**
 * The programs the fake-driver tests run, in one unit so that g++ runs once for all of them:
 * every example, then the tiny decode step of the golden cases on one chip and on two.
 */
final class FakeDriverPrograms {
    static final List<String> GOLDEN = List.of("tiny-decode", "tiny-decode-tp2");

    private FakeDriverPrograms() {
    }

    /** The cuda-fake options of the tests: -O0 (compiles fastest), segments of 40 stages. */
    static CudaOptions options() {
        return TestBackends.emulation().withTarget(CudaOptions.Target.FAKE_DRIVER).withHostOpt(0).withSegmentStages(40);
    }

    static List<Path> exampleFiles() throws Exception {
        try (Stream<Path> files = Files.list(Path.of("..", "examples"))) {
            return files.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
    }

    static Golden.Recorded golden(String name) throws Exception {
        return Golden.recorded(Path.of("..", "golden", "cases", name));
    }

    /** The examples in file order, then the golden programs in {@link #GOLDEN} order. */
    static List<Program> all() throws Exception {
        List<Program> out = new ArrayList<>();
        for (Path f : exampleFiles()) {
            out.add(ExamplesDifferentialTest.read(f));
        }
        for (String g : GOLDEN) {
            out.add(golden(g).program());
        }
        return out;
    }
}
