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
        return new Verifier().verify(c.program(), c.certificate(), c.asParent()).diagnostics().stream()
                .map(d -> d.render()).collect(Collectors.joining("\n"));
    }

    @Test
    void partial_plus_bias_shows_the_path_from_the_matmul_to_the_all_reduce_that_counts_it_twice() {
        assertThat(render(Plant.BIAS_BEFORE_REDUCE)).isEqualTo("""
                PARTIAL_PLUS_FULL stage #16 'allreduce_w2' at /stages/16/ins/1 buffer 'q.1': The full value b2 is added to the partial on 2 chips before the reduce, so it is counted once per chip that added it.
                    via #14 mm2.1: MatMul over w2 over [4,8) makes a partial of w2
                    via #15 add_b2.1: elementwise op keeps the partial
                    via #16 allreduce_w2: all-reduce takes input 1 'q.1'
                    via input 0 'q.0' holds a partial of b2 (added whole) + w2 over [0,4) (from #7 add_b2.0: elementwise op keeps the partial)
                    via input 1 'q.1' holds a partial of b2 (added whole) + w2 over [4,8) (from #15 add_b2.1: elementwise op keeps the partial)""");
    }

    @Test
    void a_dropped_slice_names_the_gap_once_the_incomplete_partial_is_used() {
        assertThat(render(Plant.DROP_SLICE)).isEqualTo("""
                ALLREDUCE_GAP stage #12 'allreduce_w2' at /stages/12/ins buffer 'p.0': This all-reduce over 1 of 2 chips leaves [4,8) of w2 uncovered, and no later all-reduce completes the partial before it is used.
                    via input 0 'p.0' holds a partial of w2 over [0,4)""");
    }

    @Test
    void a_wrong_combine_names_the_canonical_fold() {
        assertThat(render(Plant.WRONG_COMBINE)).startsWith("""
                ALLREDUCE_COMBINE stage #12 'allreduce_w2' at /stages/12/kind/combine: The combine sub(in0, in1) is not a sum of its 2 operands, each once (e.g. add(in0, in1)).""");
    }
}
