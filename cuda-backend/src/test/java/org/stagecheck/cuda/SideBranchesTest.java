package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ExpertSplit;
import org.stagecheck.cuda.runtime.SideBranches;
import org.stagecheck.spec.flow.Dataflow;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;

/**
 * The side branches found from the dataflow alone, checked here against the stage names the
 * author gives (which the rule never reads): in every sparse layer of {@code tiny-moe}, on every
 * chip, exactly the shared expert's stages form a side chain, joined at the stage that adds it to
 * the routed experts' sum and forked right after the activations it reads.
 */
class SideBranchesTest {
    private static void sharedExpertIsTheSideChain(Program p, int chips) {
        List<SideBranches.Branch> branches = SideBranches.of(p);
        Dataflow flow = Dataflow.of(p);
        List<Stage> stages = p.stages();
        int found = 0;
        for (int l = 0; l < 2; l++) {
            for (int chip = 0; chip < chips; chip++) {
                String shared = "shared.l" + l + ".";
                int c = chip;
                int layer = l;
                List<Integer> expected = new ArrayList<>();
                for (int i = 0; i < stages.size(); i++) {
                    if (stages.get(i).id().contains(shared) && stages.get(i).site().chip() == c) {
                        expected.add(i);
                    }
                }
                assertThat(expected).as("layer %d chip %d has a shared expert", l, c).isNotEmpty();
                SideBranches.Branch b = branches.stream().filter(x -> x.onSide(expected.getFirst())).findFirst().orElseThrow(
                        () -> new AssertionError(p.name() + ": the shared expert of layer " + layer + " on chip " + c + " is not on the side stream"));
                List<Integer> side = new ArrayList<>();
                for (int i = b.sideFrom(); i < b.join(); i++) {
                    side.add(i);
                }
                assertThat(side).as("%s layer %d chip %d", p.name(), l, c).isEqualTo(expected);
                assertThat(stages.get(b.join()).outs()).singleElement().asString().startsWith("moe_out.l" + l);
                // the fork follows the last stage the side chain reads from, and nothing between reads the side chain
                int lastInput = side.stream().flatMap(i -> flow.producers(i).stream()).filter(q -> q < b.sideFrom())
                        .mapToInt(Integer::intValue).max().orElseThrow();
                assertThat(b.fork()).isEqualTo(lastInput + 1);
                for (int i = b.fork(); i < b.sideFrom(); i++) {
                    assertThat(flow.producers(i)).noneMatch(b::onSide);
                }
                found++;
            }
        }
        assertThat(found).isEqualTo(2 * chips);
        // branches do not overlap: one side stream
        for (int i = 1; i < branches.size(); i++) {
            assertThat(branches.get(i).fork()).isGreaterThan(branches.get(i - 1).join());
        }
    }

    @Test
    void theSharedExpertOfEverySparseLayerIsASideChain() {
        sharedExpertIsTheSideChain(MoeGraphModeTest.author(Cut.decode(8), AuthorOptions.single()).program(), 1);
        sharedExpertIsTheSideChain(MoeGraphModeTest.author(Cut.prefill(4, 8), AuthorOptions.single()).program(), 1);
        for (ExpertSplit split : ExpertSplit.values()) {
            sharedExpertIsTheSideChain(MoeGraphModeTest.author(Cut.decode(8), AuthorOptions.split(2).withExpertSplit(split)).program(), 2);
        }
    }

    @Test
    void noBranchSpansTwoChipsOrLacksAMatMulOnEitherStream() {
        Program p = TinyModelDifferentialTest.author(Cut.decode(16), AuthorOptions.split(2)).program();
        for (SideBranches.Branch b : SideBranches.of(p)) {
            int chip = p.stages().get(b.join()).site().chip();
            for (int i = b.fork(); i <= b.join(); i++) {
                assertThat(p.stages().get(i).site().chip()).isEqualTo(chip);
            }
        }
        // a norm's reductions beside a chain of loads is independent, but holds no MatMul: not a branch
        Program single = TinyModelDifferentialTest.author(Cut.decode(16), AuthorOptions.single()).program();
        assertThat(SideBranches.of(single)).noneMatch(b -> single.stages().get(b.join()).id().startsWith("attn_norm"));
    }
}
