package org.stagecheck.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.stagecheck.verifier.corpus.Plant;
import org.stagecheck.verifier.corpus.TpCase;
import org.stagecheck.verifier.corpus.TpPrograms;
import org.stagecheck.verifier.corpus.TpSpec;

/** The exact text of the diagnostics people read: a change in wording is a visible decision (STYLE, "A verifier that collects"). */
class DiagnosticTextTest {
    private static final TpSpec SPEC = new TpSpec(1, 4, 8, 2, TpSpec.Act.RELU, false, false, false);

    private static String render(Plant plant) {
        TpCase c = TpPrograms.split(SPEC, plant);
        return new Verifier().verify(c.program(), c.certificate(), c.parent()).diagnostics().stream()
                .map(d -> d.render()).collect(Collectors.joining("\n"));
    }

    @Test
    void partial_plus_bias_shows_the_path_from_the_matmul_to_the_add() {
        assertThat(render(Plant.BIAS_BEFORE_REDUCE)).isEqualTo("""
                PARTIAL_PLUS_FULL stage #7 'add_b2.0' at /stages/7/kind/op/expr buffer 'b2.0': Add meets full buffer b2.0 with the partial of w2 over [0,4) before the reduce, so the full value is counted once per shard.
                    via #2 ld_w2.0: Load of w2.0 holds rows [0,4) of w2
                    via #6 mm2.0: MatMul over w2.0 rows [0,4) makes a partial of w2
                    via #7 add_b2.0: add meets full buffer b2.0 with the partial of w2 over [0,4)
                PARTIAL_PLUS_FULL stage #15 'add_b2.1' at /stages/15/kind/op/expr buffer 'b2.1': Add meets full buffer b2.1 with the partial of w2 over [4,8) before the reduce, so the full value is counted once per shard.
                    via #10 ld_w2.1: Load of w2.1 holds rows [4,8) of w2
                    via #14 mm2.1: MatMul over w2.1 rows [4,8) makes a partial of w2
                    via #15 add_b2.1: add meets full buffer b2.1 with the partial of w2 over [4,8)""");
    }

    @Test
    void a_dropped_slice_names_the_gap_and_what_each_input_holds() {
        assertThat(render(Plant.DROP_SLICE)).isEqualTo("""
                ALLREDUCE_GAP stage #12 'allreduce_w2' at /stages/12/ins: The inputs cover [0,4) of w2's contraction axis of 8, leaving [4,8) unsummed.
                    via in0 'p.0' on chip 0 holds the partial of w2 over [0,4), from #5 mm2.0: MatMul over w2.0 rows [0,4) makes a partial of w2""");
    }

    @Test
    void a_wrong_combine_names_the_canonical_fold() {
        assertThat(render(Plant.WRONG_COMBINE)).startsWith("""
                ALLREDUCE_COMBINE stage #12 'allreduce_w2' at /stages/12/kind/combine: The combine sub(in0, in1) is not the sum fold of 2 operands, add(in0, in1).""");
    }
}
