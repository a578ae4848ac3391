package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/**
 * Regression for the finding "attention reads unused KV-cache rows"
 * (docs/author.md "Lowering"): the authored attention reads the whole cache, so what the rows past
 * each sequence's position hold must not reach any result. Real backends allocate caches
 * uninitialised and read only the valid rows; a reference that depended on those rows would
 * report false mismatches against them.
 *
 * <p>Each case fills every cache row at or above each sequence's position (keys and values, every
 * layer; the rows the step itself writes included) with a filler - NaN, +Inf, -Inf or the largest
 * finite f32 - over a history of finite noise below the position, and requires the logits, the
 * tokens, {@code h_out} and the caches' valid rows (history and the rows the step writes) to be
 * bit-identical to the same run with zeros there, and the unused rows to be left as bound. Before
 * the fix a NaN or infinity in an unused <em>value</em> row reached the logits through
 * {@code 0 * v}.
 */
class UnusedCacheRowsTest {
    private static final ModelSpec TINY = ModelSpec.tiny();
    private static final int CTX = 8;
    private static final float[] FILLERS = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
            Float.MAX_VALUE};

    private final Interpreter interpreter = new Interpreter(RunOptions.defaults());

    /**
     * A cut, its options, and each sequence's first position: one entry for a decode or prefill
     * step ({@code pos}), one per row for a batch ({@code positions}).
     */
    record Case(Cut cut, int tp, int[] positions) {
        @Override
        public String toString() {
            return cut.cliName() + " " + cut + " tp" + tp + " at " + java.util.Arrays.toString(positions);
        }

        boolean batch() {
            return cut.step() instanceof Cut.Step.Batch;
        }

        /** Rows the step writes per sequence: a prefill writes its chunk, a decode and a batch row one. */
        int written() {
            return switch (cut.step()) {
                case Cut.Step.Prefill p -> p.rows();
                case Cut.Step.Decode _, Cut.Step.Batch _, Cut.Step.Forward _ -> 1;
            };
        }
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                new Case(Cut.decode(CTX), 1, new int[] {5}),
                new Case(Cut.decode(CTX), 1, new int[] {0}),
                new Case(Cut.prefill(3, CTX), 1, new int[] {2}),
                new Case(Cut.prefill(4, CTX), 1, new int[] {0}),
                new Case(Cut.batch(3, CTX), 1, new int[] {0, 5, 2}),
                new Case(Cut.decodeLayer(1, CTX), 1, new int[] {3}),
                new Case(Cut.prefillLayer(0, 3, CTX), 1, new int[] {1}),
                new Case(Cut.batchLayer(1, 3, CTX), 1, new int[] {4, 0, 6}),
                // split: each chip's cache shard is masked on its own
                new Case(Cut.decode(CTX), 2, new int[] {5}),
                new Case(Cut.batch(3, CTX), 4, new int[] {0, 5, 2}),
                new Case(Cut.decodeLayer(0, CTX), 4, new int[] {2}),
                new Case(Cut.batchLayer(0, 2, CTX), 2, new int[] {6, 1})
        ).flatMap(c -> {
            List<Arguments> out = new ArrayList<>();
            for (float f : FILLERS) {
                out.add(Arguments.of(c, f));
            }
            return out.stream();
        });
    }

    @ParameterizedTest(name = "{0} filled with {1}")
    @MethodSource("cases")
    void unusedCacheRowsDoNotReachAnyResult(Case c, float filler) {
        AuthorOutcome.Authored unsplit = authored(c.cut(), 1);
        AuthorOutcome.Authored program = authored(c.cut(), c.tp());
        Map<String, Long> params = c.batch() ? Map.of() : Map.of("pos", (long) c.positions()[0]);

        Map<String, Tensor> withZeros = bind(c, unsplit, 0f);
        Map<String, Tensor> withFiller = bind(c, unsplit, filler);
        RunResult zeros = run(program, withZeros, params);
        RunResult filled = run(program, withFiller, params);

        for (TensorDecl t : program.program().tensors()) {
            if (t.role() == TensorRole.OUTPUT) {
                assertThat(bits(filled.tensor(t.name()))).as("%s: output %s", c, t.name())
                        .isEqualTo(bits(zeros.tensor(t.name())));
            } else if (t.role() == TensorRole.STATE) {
                assertCache(c, t.name(), withFiller.get(t.name()), zeros.tensor(t.name()), filled.tensor(t.name()));
            }
        }
    }

    /** Valid rows as in the zero run; unused rows still hold what was bound (the filler). */
    private static void assertCache(Case c, String name, Tensor bound, Tensor zeroRun, Tensor filledRun) {
        int width = bound.shape().dim(1);
        int sequences = c.batch() ? c.positions().length : 1;
        for (int s = 0; s < sequences; s++) {
            int valid = c.positions()[s] + c.written();
            for (int row = 0; row < CTX; row++) {
                long first = (long) (s * CTX + row) * width;
                Tensor expected = row < valid ? zeroRun : bound;
                for (int j = 0; j < width; j++) {
                    assertThat(Float.floatToRawIntBits(filledRun.getFloat(first + j)))
                            .as("%s: %s sequence %d row %d col %d (%s)", c, name, s, row, j,
                                    row < valid ? "valid: as with zeros" : "unused: as bound")
                            .isEqualTo(Float.floatToRawIntBits(expected.getFloat(first + j)));
                }
            }
        }
    }

    /**
     * The unsplit program's bound tensors with caches of finite noise below each sequence's
     * position and {@code filler} from it on, cut for the split program when {@code tp > 1}.
     */
    private Map<String, Tensor> bind(Case c, AuthorOutcome.Authored unsplit, float filler) {
        Map<String, Tensor> logical = new LinkedHashMap<>(unsplit.bound());
        if (c.batch()) {
            logical.put("positions", Tensor.fromInts(Shape.of(c.positions().length), c.positions()));
        }
        SplittableRandom noise = new SplittableRandom(42);
        for (TensorDecl t : unsplit.program().tensors()) {
            if (t.role() != TensorRole.STATE) {
                continue;
            }
            int rows = t.shape().dim(0);
            int width = t.shape().dim(1);
            float[] v = new float[rows * width];
            for (int row = 0; row < rows; row++) {
                int position = c.positions()[c.batch() ? row / CTX : 0];
                boolean unused = row % CTX >= position;
                for (int j = 0; j < width; j++) {
                    // the noise stream advances alike in both runs, so the history is the same
                    float history = (float) (noise.nextDouble() * 2 - 1);
                    v[row * width + j] = unused ? filler : history;
                }
            }
            logical.put(t.name(), Tensor.fromFloats(DType.F32, t.shape(), v));
        }
        if (c.tp() == 1) {
            return logical;
        }
        return Author.bindSplit(TINY, c.cut(), AuthorOptions.split(c.tp()), logical);
    }

    private RunResult run(AuthorOutcome.Authored a, Map<String, Tensor> bound, Map<String, Long> params) {
        RunResult r = interpreter.run(a.program(), bound, params);
        assertThat(r.faults()).as("faults").isEmpty();
        return r;
    }

    private static AuthorOutcome.Authored authored(Cut cut, int tp) {
        AuthorOptions options = tp == 1 ? AuthorOptions.single() : AuthorOptions.split(tp);
        AuthorOutcome o = Author.author(TINY, cut, options);
        assertThat(o).as("%s over %d chips", cut, tp).isInstanceOf(AuthorOutcome.Authored.class);
        return (AuthorOutcome.Authored) o;
    }

    private static int[] bits(Tensor t) {
        assertThat(t).isNotNull();
        int[] out = new int[(int) t.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = t.dtype() == DType.I32 ? t.getInt(i) : Float.floatToRawIntBits(t.getFloat(i));
        }
        return out;
    }
}
