package org.stagecheck.interp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;

/**
 * Pins the checksum of every tensor the examples leave (on seed-7 random bindings, every parameter
 * at its minimum and at its maximum, 1 and 2 threads) and of every stage output of the traced run.
 * A change to the evaluator (a faster kernel, buffers that are views) must leave all of it
 * bit-identical; a deliberate change of semantics regenerates the file with
 * {@code -Dstagecheck.fingerprints.write=PATH}.
 */
class ExampleFingerprintsTest {
    private static final String RESOURCE = "example-fingerprints.txt";

    @Test
    void everyExampleComputesExactlyAsPinned() throws Exception {
        StringBuilder sb = new StringBuilder();
        List<Path> examples;
        try (Stream<Path> s = Files.list(Path.of("..", "examples"))) {
            examples = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        assertThat(examples).hasSizeGreaterThanOrEqualTo(5);
        for (Path file : examples) {
            Program p = new ProgramCodec().read(Files.readString(file));
            Map<String, Tensor> bound = RandomBindings.forProgram(p, 7);
            for (boolean atMax : new boolean[] {false, true}) {
                Map<String, Long> params = new TreeMap<>();
                for (Param q : p.params()) {
                    params.put(q.name(), atMax ? q.max() : q.min());
                }
                for (int threads : new int[] {1, 2}) {
                    RunResult r = new Interpreter(RunOptions.defaults().withThreads(threads)).run(p, bound, params);
                    assertThat(r.faults()).as(file + " " + params).isEmpty();
                    sb.append(file.getFileName()).append(' ').append(params).append(" threads=").append(threads).append('\n');
                    new TreeMap<>(r.tensors()).forEach((n, t) -> sb.append("  tensor ").append(n).append(' ')
                            .append(t.checksum()).append('\n'));
                }
                RunResult traced = new Interpreter(RunOptions.defaults().withTrace(true)).run(p, bound, params);
                sb.append(file.getFileName()).append(' ').append(params).append(" traced\n");
                traced.trace().forEach((stage, outs) -> {
                    for (int i = 0; i < outs.size(); i++) {
                        sb.append("  stage ").append(stage).append('/').append(i).append(' ')
                                .append(outs.get(i).checksum()).append('\n');
                    }
                });
            }
        }
        String actual = sb.toString();
        String target = System.getProperty("stagecheck.fingerprints.write");
        if (target != null) {
            Files.writeString(Path.of(target), actual);
        }
        String expected;
        try (InputStream in = ExampleFingerprintsTest.class.getResourceAsStream(RESOURCE)) {
            assertThat(in).as(RESOURCE + " on the test class path").isNotNull();
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(actual.lines().toList()).containsExactlyElementsOf(expected.lines().toList());
    }
}
