package org.stagecheck.golden.debug;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.Subjects;
import org.stagecheck.golden.Subjects.Subject;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.Tensor;

/** The dataflow a diff judges "inputs agree" by, and the prefix programs bisection runs. */
class DataflowAndCutTest {

    static Stream<Subject> subjects() throws IOException {
        List<Subject> all = new ArrayList<>(Subjects.examples());
        all.addAll(Subjects.tinyCuts(false, true).stream().filter(s -> s.name().startsWith("tiny-decode")).toList());
        return all.stream();
    }

    private static Subject example(String name) throws IOException {
        return Subjects.examples().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    private static int index(Program p, String id) {
        for (int i = 0; i < p.stages().size(); i++) {
            if (p.stages().get(i).id().equals(id)) {
                return i;
            }
        }
        throw new AssertionError(id);
    }

    @Test
    void aRecvIsProducedByItsGroupsLoadAndAnIndirectLoadByItsIndexBuffersWriter() throws IOException {
        Program mm = example("tiled-matmul-multicast").program();
        Dataflow f = Dataflow.of(mm);
        assertThat(f.producers(index(mm, "recv_a.10"))).containsExactly(index(mm, "load_a"));
        assertThat(f.producers(index(mm, "mm.10"))).containsExactly(index(mm, "recv_a.10"), index(mm, "load_w.10"));

        Program emb = example("embedding-lookup").program();
        Dataflow g = Dataflow.of(emb);
        assertThat(g.producers(index(emb, "gather"))).containsExactly(index(emb, "load_ids"));
        // a stage that reads only program inputs has no producer: both sides share them
        assertThat(g.producers(index(emb, "load_ids"))).isEmpty();
    }

    @Test
    void theConeStopsAtRecordedStagesAndCrossesStoresAndUntracedOnes() throws IOException {
        Program mm = example("tiled-matmul-multicast").program();
        Dataflow f = Dataflow.of(mm);
        int mm10 = index(mm, "mm.10");
        Dataflow.Cone all = f.cone(mm10, p -> true);
        assertThat(all.recorded()).containsExactly(index(mm, "recv_a.10"), index(mm, "load_w.10"));
        assertThat(all.crossed()).isEmpty();
        Dataflow.Cone noRecv = f.cone(mm10, p -> !mm.stages().get(p).id().startsWith("recv"));
        assertThat(noRecv.crossed()).containsExactly(index(mm, "recv_a.10"));
        assertThat(noRecv.recorded()).containsExactly(index(mm, "load_a"), index(mm, "load_w.10"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void everyProducerComesEarlierAndNamesTheLastWriterOfEachBufferRead(Subject s) {
        Program p = s.program();
        Dataflow f = Dataflow.of(p);
        for (int i = 0; i < p.stages().size(); i++) {
            Stage st = p.stages().get(i);
            for (int q : f.producers(i)) {
                assertThat(q).isLessThan(i);
            }
            for (Map.Entry<String, Integer> w : f.bufferWriters(i).entrySet()) {
                assertThat(Dataflow.written(p.stages().get(w.getValue()))).contains(w.getKey());
                for (int between = w.getValue() + 1; between < i; between++) {
                    assertThat(Dataflow.written(p.stages().get(between))).doesNotContain(w.getKey());
                }
                assertThat(f.producers(i)).contains(w.getValue());
            }
            if (st.kind() instanceof StageKind.Recv r) {
                assertThat(f.producers(i)).anyMatch(q -> p.stages().get(q).kind() instanceof StageKind.Load l && r.group().equals(l.multicast()));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void everyPrefixIsWellFormedAndStoresTheReferencesLiveValues(Subject s) {
        Program p = s.program();
        RunResult full = new Interpreter(RunOptions.defaults().withTrace(true)).run(p, s.bound(), s.params());
        int n = p.stages().size();
        for (int k : new int[] {0, n / 3, n / 2, n - 2, n - 1}) {
            if (k < 0) {
                continue;
            }
            CutProgram cut = CutProgram.prefix(p, k);
            assertThat(new Validator().validate(cut.program())).as("prefix %d of %s", k, s.name()).isEmpty();
            assertThat(cut.buffers().keySet()).containsAll(p.stages().get(k).outs());
            RunResult r = new Interpreter(RunOptions.defaults()).run(cut.program(), s.bound(), s.params());
            assertThat(r.ok()).isTrue();
            for (Map.Entry<String, String> e : cut.buffers().entrySet()) {
                Tensor expected = lastWrittenBefore(p, full, e.getKey(), k);
                if (expected != null) {
                    assertThat(r.tensor(e.getValue()).bitEquals(expected)).as("%s after stage %d", e.getKey(), k).isTrue();
                }
            }
        }
    }

    /** The reference's value of buffer {@code b} after stage {@code k}: its last writer's traced port, or null for a spill. */
    private static Tensor lastWrittenBefore(Program p, RunResult full, String b, int k) {
        for (int i = k; i >= 0; i--) {
            Stage st = p.stages().get(i);
            int port = st.outs().indexOf(b);
            if (port >= 0) {
                return full.trace().get(st.id()).get(port);
            }
            if (Dataflow.written(st).contains(b)) {
                return null;
            }
        }
        throw new AssertionError(b + " is live after " + k + " but never written");
    }
}
