package org.stagecheck.passcheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.cert.BufferRemap;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.spec.gen.KindName;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.json.ProgramCodec;

/** The first example of docs/pass-testing.md ("PassCheck"): a pass that renumbers buffers, checked with PassCheck. */
@Tag("slow")
class ReadmeExampleTest {

    /** The pass under test: buffer i becomes "b<i>", ports and kind-internal references alike; the map goes in the certificate. */
    static Pass.Result renumberBuffers(Program parent, Certificate certificate) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < parent.buffers().size(); i++) {
            map.put(parent.buffers().get(i).name(), "b" + i);
        }
        Certificate claims = new Certificate(certificate == null ? List.of() : certificate.shards(),
                new BufferRemap(new ProgramCodec().hash(parent), map), certificate == null ? List.of() : certificate.claims());
        return new Pass.Result(parent.remapBuffers(map), claims);
    }

    @Test
    void renumberingBuffersKeepsEveryLaw() {
        PassCheck.of("renumber buffers", ReadmeExampleTest::renumberBuffers)
                .laws(new Law.WellFormed(), new Law.CertificateVerifies(), Law.SameOutputs.bitExact(), new Law.Idempotent())
                .tries(1000)   // random programs, windows of the tiny model's cuts and of the examples, splits
                .check();      // on a failure: an AssertionError naming the seed, the law, the minimal program, the replay
    }

    @Test
    void renumberingHoldsOnSmallBf16ProgramsWithoutMulticastWithinOneUlp() {
        GenConfig config = GenConfig.defaults()
                .withKinds(KindName.LOAD, KindName.STORE, KindName.GENERIC, KindName.MAT_MUL, KindName.ALL_REDUCE)
                .withDtypes(DType.BF16, DType.F32)
                .withMulticast(false)
                .withTpDegrees(2)          // splits over 2 chips, with their certificates
                .withStages(0, 30);        // random programs of at most 30 stages
        PassCheck.of("renumber buffers, bf16", ReadmeExampleTest::renumberBuffers)
                .config(config)
                .laws(new Law.WellFormed(), new Law.CertificateVerifies(), Law.SameOutputs.within(new Policy.Ulp(1)))
                .check();
    }

    /** Its buggy twin forgets a MatMul's spill: caught, shrunk, and reported with the command that replays it. */
    @Test
    void aRenumberingThatForgetsTheSpillIsCaught() {
        Pass forgetsSpill = (parent, certificate) -> {
            Pass.Result r = renumberBuffers(parent, certificate);
            List<Stage> stages = new java.util.ArrayList<>();
            for (int i = 0; i < parent.stages().size(); i++) {
                Stage s = r.program().stages().get(i);
                if (s.kind() instanceof StageKind.Compute(ComputeOp.MatMul m) && m.spill() != null
                        && parent.stages().get(i).kind() instanceof StageKind.Compute(ComputeOp.MatMul old)) {
                    s = new Stage(s.id(), s.site(), s.ins(), s.outs(),
                            new StageKind.Compute(new ComputeOp.MatMul(m.transposeA(), m.transposeB(), m.bias(), old.spill())));
                }
                stages.add(s);
            }
            return new Pass.Result(r.program().withStages(stages), r.certificate());
        };
        PassCheckReport report = PassCheck.of("renumber buffers, spill forgotten", forgetsSpill).run();
        System.out.println(report.text());
        assertThat(report.failure().violation().signature()).isEqualTo("well-formed: UNKNOWN_BUFFER");
        assertThat(report.failure().after().stages()).isLessThanOrEqualTo(6);
        assertThat(report.failure().replay()).endsWith("-Dtest='ReadmeExampleTest#aRenumberingThatForgetsTheSpillIsCaught' -Dstagecheck.seed="
                + report.failure().seed());
    }
}
