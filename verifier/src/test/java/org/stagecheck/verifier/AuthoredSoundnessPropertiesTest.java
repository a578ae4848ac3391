package org.stagecheck.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.verifier.corpus.AuthoredCase;
import org.stagecheck.verifier.corpus.AuthoredMutants;
import org.stagecheck.verifier.corpus.Plant;
import org.stagecheck.verifier.soundness.AuthoredRuns;
import org.stagecheck.verifier.soundness.Outcome;
import org.junit.jupiter.api.Tag;

/**
 * Acceptance implies equality on random inputs, for the author's splits: a random authored split
 * (or one of its mutants), random f32 inputs and state (hidden states and KV caches uniform in
 * [-1, 1)), a random decode position; when the checker accepts, the split run equals the unsplit
 * one within {@link AuthoredRuns#RELATIVE_TOLERANCE}. Integer inputs (token ids, batch positions)
 * keep the author's sample values, which are always in range.
 */
@Tag("slow")
class AuthoredSoundnessPropertiesTest {
    private static final List<AuthoredCase> SPLITS = AuthoredCorpusTest.validSplits();

    @SeededProperty(tries = 24)
    void acceptance_implies_the_authored_split_equals_the_unsplit_cut_on_random_inputs(long seed) {
        SplittableRandom draw = new SplittableRandom(seed);
        int which = draw.nextInt(8);
        int plantPick = draw.nextInt(2 * 12 + 1);
        long inputSeed = draw.nextLong(1, 1_000_001);
        AuthoredCase valid = SPLITS.get(which);
        Plant plant = plantPick < 12 ? Plant.NONE : Plant.values()[1 + plantPick % 12];
        var mutant = AuthoredMutants.plant(valid, plant);
        if (mutant.isEmpty()) {
            return; // the class has no place in this cut (a decode layer names no buffer inside a kind)
        }
        AuthoredCase c = mutant.get();
        boolean accepted = new Verifier().verify(c.program(), c.certificate(), c.asParent()).holds();
        assertThat(accepted).as("%s is accepted exactly when valid", c.name()).isEqualTo(plant == Plant.NONE);
        if (accepted) {
            AuthorOutcome.Authored u = AuthoredRuns.unsplit(c);
            SplittableRandom r = new SplittableRandom(inputSeed);
            Map<String, Tensor> bound = new LinkedHashMap<>(u.bound());
            for (TensorDecl t : u.program().tensors()) {
                if ((t.role() == TensorRole.INPUT || t.role() == TensorRole.STATE) && t.dtype() == DType.F32) {
                    float[] v = new float[(int) t.shape().elementCount()];
                    for (int i = 0; i < v.length; i++) {
                        v[i] = (float) (2 * r.nextDouble() - 1);
                    }
                    bound.put(t.name(), Tensor.fromFloats(DType.F32, t.shape(), v));
                }
            }
            Map<String, Long> params = new LinkedHashMap<>();
            for (Param p : u.program().params()) {
                params.put(p.name(), p.min() + r.nextLong(p.max() - p.min() + 1));
            }
            Outcome o = AuthoredRuns.run(c, AuthoredRuns.reference(c, bound, params));
            assertThat(o.kind()).as("%s on inputs %d, params %s: %s", c.name(), inputSeed, params, o).isEqualTo(Outcome.Kind.AGREES);
        }
    }
}
