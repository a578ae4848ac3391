package org.stagecheck.verifier.parent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.corpus.TpSpec;
import org.stagecheck.verifier.shard.SplitEdits;

/**
 * The split's parameters against its unsplit parent's (docs/verifier.md, "The unsplit parent"): a
 * parameter the parent lacks, or a wider range, is {@code PARAM_RANGE_WIDER} where it is declared;
 * the same range or a narrower one is accepted.
 */
class ParamRangesTest {
    private static final TpSpec SPEC = new TpSpec(2, 4, 8, 2, TpSpec.Act.TANH, false, false, false);

    private static Program withParams(Program p, List<Param> params) {
        return new Program(p.name(), p.machine(), params, p.tensors(), p.buffers(), p.groups(), p.stages());
    }

    private static VerifyReport verify(List<Param> split, List<Param> parent) {
        SplitEdits e = new SplitEdits(SPEC);
        return new Verifier().verify(withParams(e.program(), split), e.certificate(), Parent.unsplit(withParams(e.asCase().unsplit(), parent)));
    }

    @Test
    void the_same_or_a_narrower_range_is_accepted() {
        assertThat(verify(List.of(new Param("pos", 0, 7)), List.of(new Param("pos", 0, 7))).codes()).isEmpty();
        assertThat(verify(List.of(new Param("pos", 2, 5)), List.of(new Param("pos", 0, 7))).codes()).isEmpty();
        assertThat(verify(List.of(), List.of(new Param("pos", 0, 7))).codes()).isEmpty();
    }

    @Test
    void a_wider_range_is_a_finding_where_the_split_declares_it() {
        VerifyReport above = verify(List.of(new Param("step", 0, 1), new Param("pos", 0, 8)), List.of(new Param("pos", 0, 7), new Param("step", 0, 1)));
        assertThat(above.codes()).containsExactly("PARAM_RANGE_WIDER");
        Diagnostic d = above.diagnostics().getFirst();
        assertThat(d.field()).isEqualTo("/params/1/max");
        assertThat(d.message()).contains("'pos' in [0,8]").contains("[0,7]");
        VerifyReport below = verify(List.of(new Param("pos", -1, 7)), List.of(new Param("pos", 0, 7)));
        assertThat(below.diagnostics()).singleElement().extracting(Diagnostic::field).isEqualTo("/params/0/min");
    }

    @Test
    void a_parameter_the_parent_lacks_is_a_finding() {
        VerifyReport r = verify(List.of(new Param("pos", 0, 7)), List.of());
        assertThat(r.codes()).containsExactly("PARAM_RANGE_WIDER");
        assertThat(r.diagnostics().getFirst().field()).isEqualTo("/params/0/name");
        // alone (no parent) nothing is compared
        SplitEdits e = new SplitEdits(SPEC);
        assertThat(new Verifier().verify(withParams(e.program(), List.of(new Param("pos", 0, 7))), e.certificate(), Parent.none()).codes()).isEmpty();
    }
}
