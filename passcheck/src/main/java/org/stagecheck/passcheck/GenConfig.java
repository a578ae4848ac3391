package org.stagecheck.passcheck;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.stagecheck.author.Cut;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.gen.GenSpace;
import org.stagecheck.spec.gen.KindName;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;

/**
 * What PassCheck generates (docs/pass-testing.md, "Generators"). Each try draws a source with the
 * given weights:
 * <ul>
 *   <li>{@link Source#RANDOM}: a random program inside {@link #space} ({@code RandomPrograms.draw}:
 *       every allowed stage kind, pattern and op, splits with their certificate, multicast groups);</li>
 *   <li>{@link Source#AUTHORED}: a window of one of the tiny model's authored {@link #cuts} (a cut,
 *       then a random run of its stages with what came before fed in from the reference);</li>
 *   <li>{@link Source#SPLIT}: one of the cuts split over one of the space's tensor-parallel degrees,
 *       with its certificate;</li>
 *   <li>{@link Source#EXAMPLES}: the user's own programs (by default the repository's examples),
 *       whole when they carry a certificate, else windows of them as for the cuts.</li>
 * </ul>
 * The space's restrictions of kinds, dtypes, chips, multicast and splits hold for every source: a
 * real program outside them is not drawn (after a few draws the try falls back to a random
 * program, which is inside by construction). Its sizes (stage count, grid, dimensions) shape the
 * random programs; real programs and windows of them keep their own.
 *
 * @param cuts     the authored cuts drawn from (AUTHORED and SPLIT)
 * @param examples the programs drawn from (EXAMPLES)
 */
public record GenConfig(GenSpace space, int randomWeight, int authoredWeight, int splitWeight, List<Cut> cuts,
                        int exampleWeight, List<Example> examples) {
    /** Where a try's program comes from. */
    public enum Source { RANDOM, AUTHORED, SPLIT, EXAMPLES }

    /** A program of the user's, with its certificate (null when it has none). */
    public record Example(String name, Program program, Certificate certificate) {}

    public GenConfig {
        if (randomWeight < 0 || authoredWeight < 0 || splitWeight < 0 || exampleWeight < 0
                || randomWeight + authoredWeight + splitWeight + exampleWeight == 0) {
            throw new IllegalArgumentException("the source weights are non-negative and not all zero");
        }
        cuts = List.copyOf(cuts);
        examples = List.copyOf(examples);
        if ((authoredWeight > 0 || splitWeight > 0) && cuts.isEmpty()) {
            throw new IllegalArgumentException("authored and split programs need at least one cut");
        }
        if (exampleWeight > 0 && examples.isEmpty()) {
            throw new IllegalArgumentException("drawing examples needs at least one example");
        }
    }

    /**
     * Random programs 6 in 10 tries (2-3 chips of up to 3x3 cores, up to 80 stages, dimensions up
     * to 6, every kind and dtype, multicast, splits over 2-4 chips), authored windows 2 in 10, splits
     * 1 in 10 and the repository's examples 1 in 10 ({@link BundledExamples}); the cuts decode
     * (ctx 8), decode layer 0, prefill (3 rows) and batch (2 rows); 1 to 3 chips, so that the
     * unsplit cuts and the 2-chip splits are inside.
     */
    public static GenConfig defaults() {
        return new GenConfig(GenSpace.everything().withChips(1, 3), 6, 2, 1,
                List.of(Cut.decode(8), Cut.decodeLayer(0, 8), Cut.prefill(3, 8), Cut.batch(2, 8)), 1, BundledExamples.all());
    }

    /** Random programs only. */
    public static GenConfig randomOnly() {
        return defaults().withWeights(1, 0, 0).withExamples(List.of(), 0);
    }

    /** These weights for random programs, authored windows and splits (the examples keep theirs). */
    public GenConfig withWeights(int random, int authored, int split) {
        return new GenConfig(space, random, authored, split, cuts, exampleWeight, examples);
    }

    /** Draws {@code programs} instead of the bundled examples, with weight {@code weight} against the other sources. */
    public GenConfig withExamples(List<Example> programs, int weight) {
        return new GenConfig(space, randomWeight, authoredWeight, splitWeight, cuts, weight, programs);
    }

    public GenConfig withCuts(List<Cut> newCuts) {
        return new GenConfig(space, randomWeight, authoredWeight, splitWeight, newCuts, exampleWeight, examples);
    }

    public GenConfig withSpace(GenSpace newSpace) {
        return new GenConfig(newSpace, randomWeight, authoredWeight, splitWeight, cuts, exampleWeight, examples);
    }

    /** Random programs of {@code min..max} stages. */
    public GenConfig withStages(int min, int max) {
        return withSpace(space.withStages(min, max));
    }

    /** Random programs whose drawn dimensions are at most {@code max}. */
    public GenConfig withMaxDim(int max) {
        return withSpace(space.withMaxDim(max));
    }

    /** Random programs on chips of at most {@code max x max} cores. */
    public GenConfig withGrid(int max) {
        return withSpace(space.withGrid(max));
    }

    /** Every program on {@code min..max} chips. */
    public GenConfig withChips(int min, int max) {
        return withSpace(space.withChips(min, max));
    }

    /** Only these stage kinds and compute ops (LOAD and STORE among them). */
    public GenConfig withKinds(KindName... kinds) {
        return withSpace(space.withKinds(EnumSet.copyOf(List.of(kinds))));
    }

    /** Only these dtypes, in tensors, buffers and casts (a floating one among them). */
    public GenConfig withDtypes(DType... dtypes) {
        return withSpace(space.withDtypes(EnumSet.copyOf(List.of(dtypes))));
    }

    /** Multicast groups on or off. */
    public GenConfig withMulticast(boolean on) {
        return withSpace(space.withMulticast(on));
    }

    /** Tensor-parallel splits (with their certificates) on, over 2-4 chips unless degrees were chosen, or off. */
    public GenConfig withSplits(boolean on) {
        Set<Integer> degrees = !on ? Set.of() : space.tpDegrees().isEmpty() ? Set.of(2, 3, 4) : space.tpDegrees();
        return withSpace(space.withTpDegrees(degrees));
    }

    /** Splits over exactly these numbers of chips (random programs and split cuts alike). */
    public GenConfig withTpDegrees(int... degrees) {
        return withSpace(space.withTpDegrees(IntStream.of(degrees).boxed().collect(Collectors.toSet())));
    }
}
