package org.stagecheck.reduce;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.cuda.lower.ProgramLowering;
import org.stagecheck.cuda.lower.StaticFault;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.verifier.Verifier;

/**
 * The four users of the spec's {@link org.stagecheck.spec.flow.Dataflow} get the same facts from it
 * on every example program, every author cut (unsplit, and split where a split exists) and mutants
 * of them (a stage left out, so that something is read before it is written; a matmul accumulating
 * twice into a spill nobody wrote first): the verifier's READ_BEFORE_WRITE findings, the reducer's
 * early reads, the CUDA lowering's static fault and the golden debugger's producers.
 */
@Tag("slow")
class DataflowAgreementTest {
    private static final String SPILL = "spill.mutant";

    private record Case(String name, Program program) {}

    private static List<Case> programs() throws Exception {
        List<Case> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("..", "examples"))) {
            for (Path p : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                out.add(new Case(p.getFileName().toString(), new ProgramCodec().read(Files.readString(p))));
            }
        }
        ModelSpec tiny = ModelSpec.tiny();
        List<Cut> cuts = List.of(Cut.decode(8), Cut.prefill(3, 8), Cut.batch(2, 8), Cut.forward(),
                Cut.forwardLayer(1), Cut.forwardHead(), Cut.decodeEmbed(), Cut.decodeLayer(0, 8),
                Cut.decodeHead(), Cut.batchEmbed(3), Cut.batchLayer(1, 2, 8), Cut.batchHead(2),
                Cut.prefillLayer(0, 3, 8), Cut.prefillHead(3));
        for (Cut cut : cuts) {
            out.add(new Case(cut.cliName(), ((AuthorOutcome.Authored) Author.author(tiny, cut, AuthorOptions.single())).program()));
        }
        for (Cut cut : List.of(Cut.decode(8), Cut.batch(2, 8), Cut.decodeLayer(1, 8), Cut.batchLayer(0, 3, 4))) {
            out.add(new Case(cut.cliName() + " tp2", ((AuthorOutcome.Authored) Author.author(tiny, cut, AuthorOptions.split(2))).program()));
        }
        return out;
    }

    /** Each program, the program without each of (up to) four of its stages, and with a twice-used unwritten spill. */
    private static List<Case> withMutants(List<Case> programs) {
        List<Case> out = new ArrayList<>();
        for (Case c : programs) {
            out.add(c);
            List<Stage> stages = c.program().stages();
            int n = stages.size();
            for (int k : new LinkedHashSet<>(List.of(0, n / 3, (2 * n) / 3, n - 2))) {
                if (k >= 0 && k < n) {
                    List<Stage> less = new ArrayList<>(stages);
                    less.remove(k);
                    out.add(new Case(c.name() + " without stage " + k, c.program().withStages(less)));
                }
            }
            Program spilled = withUnwrittenSpill(c.program());
            if (spilled != null) {
                out.add(new Case(c.name() + " accumulating twice into an unwritten spill", spilled));
            }
        }
        return out;
    }

    /** The first matmul given a new f32 spill of its output's shape, and repeated right after it; null without a matmul. */
    private static Program withUnwrittenSpill(Program p) {
        List<Stage> stages = new ArrayList<>(p.stages());
        for (int i = 0; i < stages.size(); i++) {
            Stage s = stages.get(i);
            if (s.kind() instanceof StageKind.Compute(ComputeOp.MatMul m) && m.spill() == null) {
                BufferDecl out = p.buffersByName().get(s.outs().getFirst());
                List<BufferDecl> buffers = new ArrayList<>(p.buffers());
                buffers.add(new BufferDecl(SPILL, DType.F32, out.shape(), out.site()));
                Stage spilling = new Stage(s.id(), s.site(), s.ins(), s.outs(),
                        new StageKind.Compute(new ComputeOp.MatMul(m.transposeA(), m.transposeB(), m.bias(), SPILL)));
                stages.set(i, spilling);
                stages.add(i + 1, new Stage(s.id() + ".again", s.site(), s.ins(), s.outs(), spilling.kind()));
                return p.withBuffers(buffers).withStages(stages);
            }
        }
        return null;
    }

    @Test
    void theVerifierTheReducerTheCudaLoweringAndTheGoldenDebuggerAgree() throws Exception {
        int readsBeforeWrite = 0;
        int spills = 0;
        for (Case c : withMutants(programs())) {
            Program p = c.program();
            org.stagecheck.spec.flow.Dataflow flow = org.stagecheck.spec.flow.Dataflow.of(p);
            List<String> early = new ArrayList<>();
            Set<String> earlyBuffers = new LinkedHashSet<>();
            for (int i = 0; i < p.stages().size(); i++) {
                for (String b : flow.readsBeforeWrite(i)) {
                    early.add(i + "|" + b);
                    earlyBuffers.add(b);
                }
            }
            readsBeforeWrite += early.isEmpty() ? 0 : 1;

            // the verifier's ordering obligation
            List<String> verifier = new ArrayList<>();
            for (Diagnostic d : new Verifier().verify(p, null, org.stagecheck.verifier.Parent.none()).diagnostics()) {
                if (d.code().equals("READ_BEFORE_WRITE")) {
                    verifier.add(d.stageIndex() + "|" + d.buffer());
                }
            }
            assertThat(verifier).as(c.name()).containsExactlyInAnyOrderElementsOf(early);

            // the reducer's early reads (multicast groups aside)
            Set<String> reducer = new LinkedHashSet<>(Dataflow.readsBeforeWrite(p));
            reducer.removeIf(b -> b.startsWith("group:"));
            assertThat(reducer).as(c.name()).containsExactlyElementsOf(earlyBuffers);

            // the CUDA lowering's static fault: the first read before write, unless a Recv with nothing delivered comes first
            StaticFault fault = ProgramLowering.lower(p, "k").staticFault();
            if (fault == null) {
                assertThat(early).as(c.name()).isEmpty();
            } else if (fault.code() == org.stagecheck.backend.FaultCode.READ_BEFORE_WRITE) {
                assertThat(fault.stageIndex() + "|" + fault.buffer()).as(c.name()).isEqualTo(early.getFirst());
            } else {
                assertThat(fault.code()).as(c.name()).isEqualTo(org.stagecheck.backend.FaultCode.RECV_WITHOUT_LOAD);
                assertThat(flow.groupLoad(fault.stageIndex())).isEqualTo(org.stagecheck.spec.flow.Dataflow.NONE);
                assertThat(early.isEmpty() || Integer.parseInt(early.getFirst().split("\\|")[0]) >= fault.stageIndex()).as(c.name()).isTrue();
            }

            // the golden debugger's producers and buffer writers
            org.stagecheck.golden.debug.Dataflow golden = org.stagecheck.golden.debug.Dataflow.of(p);
            for (int i = 0; i < p.stages().size(); i++) {
                Map<String, Integer> writers = new LinkedHashMap<>();
                for (org.stagecheck.spec.flow.Dataflow.Read r : flow.reads(i)) {
                    if (r.writer() != org.stagecheck.spec.flow.Dataflow.NONE) {
                        writers.put(r.buffer(), r.writer());
                    }
                }
                assertThat(golden.producers(i)).as(c.name() + " stage " + i).isEqualTo(flow.producers(i));
                assertThat(golden.bufferWriters(i)).as(c.name() + " stage " + i).isEqualTo(writers);
            }

            // the spill: read by both matmuls, unwritten by the first without a fault, the first's result for the second
            if (c.name().endsWith("unwritten spill")) {
                spills++;
                int first = -1;
                for (int i = 0; i < p.stages().size() && first < 0; i++) {
                    if (p.stages().get(i).buffersRead().contains(SPILL)) {
                        first = i;
                    }
                }
                assertThat(earlyBuffers).as(c.name()).doesNotContain(SPILL);
                assertThat(golden.bufferWriters(first + 1)).as(c.name()).containsEntry(SPILL, first);
                assertThat(golden.producers(first + 1)).as(c.name()).contains(first);
                assertThat(golden.bufferWriters(first)).as(c.name()).doesNotContainKey(SPILL);
            }
        }
        assertThat(readsBeforeWrite).as("mutants that read before a write").isGreaterThanOrEqualTo(20);
        assertThat(spills).as("programs with a matmul").isGreaterThanOrEqualTo(10);
    }
}
