package org.stagecheck.interp.accuracy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.CORE;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.json.ExprSyntax;
import org.stagecheck.tensor.Tensor;

/**
 * Every narrow code widens to the value its format defines, and every place a value is narrowed
 * (a Reduce, a MatMul and a Generic writing a narrow buffer; a Load, a Store and the layout ops keep
 * the dtype, a rule of the language every backend holds them to) rounds to nearest with ties to even, once, saturating
 * for e4m3/e5m2 and overflowing to Inf for bf16/f16 (docs/semantics.md, "Dtypes and rounding").
 * The expected values come from {@link NarrowFormats}, which decodes each format from its
 * definition and rounds by searching the decoded values.
 */
class NarrowingEverywhereTest {

    @ParameterizedTest
    @EnumSource(NarrowFormats.class)
    void everyCodeWidensToTheValueItsFormatDefines(NarrowFormats f) {
        int count = 1 << f.bits;
        Tensor codes = f.bits == 16 ? Tensor.fromBits16(f.dtype, Shape.of(count), shorts(count)) : Tensor.fromBits8(f.dtype, Shape.of(count), bytes(count));
        // a Load keeps the dtype; the Generic "in0" into an f32 buffer widens
        RunResult r = Fixtures.program().input("t", codes).buffer("T", f.dtype, count).loadAll("l", "t", "T", CORE)
                .buffer("B", DType.F32, count).generic("w", List.of("T"), "B", Expr.in(0)).run();
        assertThat(r.faults()).isEmpty();
        float[] widened = r.trace().get("w").getFirst().toFloats();
        for (int code = 0; code < count; code++) {
            double expected = f.decode(code);
            String what = f + " code 0x" + Integer.toHexString(code) + ": " + widened[code] + " vs " + expected;
            if (Double.isNaN(expected)) {
                assertThat(widened[code]).as(what).isNaN();
            } else {
                assertThat(Float.floatToIntBits(widened[code])).as(what).isEqualTo(Float.floatToIntBits((float) expected));
                assertThat((double) widened[code]).as(what + " (exact in f32)").isEqualTo(expected);
            }
        }
    }

    @Test
    void theNaNAndInfinityCodesAreTheDocumentedOnes() {
        // e4m3: no infinities, S.1111.111 is NaN, S.1111.110 is 448; e5m2: S.11111.00 is Inf, .01-.11 NaN
        assertThat(NarrowFormats.E4M3.decode(0x7F)).isNaN();
        assertThat(NarrowFormats.E4M3.decode(0xFF)).isNaN();
        assertThat(NarrowFormats.E4M3.decode(0x7E)).isEqualTo(448);
        assertThat(NarrowFormats.E4M3.decode(0x78)).isEqualTo(256);
        assertThat(NarrowFormats.E5M2.decode(0x7C)).isInfinite();
        assertThat(NarrowFormats.E5M2.decode(0x7B)).isEqualTo(57344);
        assertThat(NarrowFormats.E5M2.decode(0xFD)).isNaN();
        assertThat(NarrowFormats.F16.decode(0x0001)).isEqualTo(0x1p-24);
        assertThat(NarrowFormats.F16.decode(0x03FF)).isEqualTo(1023 * 0x1p-24);
        assertThat(NarrowFormats.E4M3.decode(0x01)).isEqualTo(0x1p-9);
        assertThat(NarrowFormats.E5M2.decode(0x01)).isEqualTo(0x1p-16);
        // a computed NaN becomes the NaN code of the format: 0x7F for both 8-bit formats, 0x7E00 for f16, 0x7FC0 for bf16
        for (NarrowFormats f : NarrowFormats.values()) {
            Tensor out = genericTo(f.dtype, "sub(in0, in0)", new float[] {Float.POSITIVE_INFINITY});
            int bits = f.bits == 16 ? out.rawBits16()[0] & 0xFFFF : out.rawBits8()[0] & 0xFF;
            assertThat(bits).as(f + " NaN code").isEqualTo(switch (f) {
                case BF16 -> 0x7FC0;
                case F16 -> 0x7E00;
                case E4M3, E5M2 -> 0x7F;
            });
        }
    }

    /** Where a value is narrowed, by name: each builds a program from an f32 input {@code t} [n] and returns the narrowed values. */
    enum Narrowing {
        REDUCE_ONE_ELEMENT_SUM((f, n, p) -> p.buffer("X", DType.F32, n).loadAll("l", "t", "X", CORE)
                .buffer("X1", DType.F32, n, 1).compute("r", List.of("X"), "X1", new ComputeOp.Reshape()).buffer("N", f, n, 1)
                .compute("narrow", List.of("X1"), "N", new ComputeOp.Reduce(ReduceFn.SUM, 1))),
        MATMUL_TIMES_ONE((f, n, p) -> p.buffer("X", DType.F32, n).loadAll("l", "t", "X", CORE)
                .buffer("X1", DType.F32, n, 1).compute("r", List.of("X"), "X1", new ComputeOp.Reshape())
                .input("one", Tensor.fromFloats(DType.F32, Shape.of(1, 1), new float[] {1})).buffer("O", DType.F32, 1, 1)
                .loadAll("lo", "one", "O", CORE).buffer("N", f, n, 1).compute("narrow", List.of("X1", "O"), "N", ComputeOp.MatMul.plain())),
        GENERIC((f, n, p) -> {
            try {
                return p.buffer("X", DType.F32, n).loadAll("l", "t", "X", CORE).buffer("N", f, n)
                        .generic("narrow", List.of("X"), "N", ExprSyntax.parse("in0"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });

        /** Adds the narrowing stage {@code narrow} (and what it needs) to {@code p}, which declares the f32 input {@code t} of {@code n} elements. */
        interface Build {
            Fixtures add(DType f, int n, Fixtures p);
        }

        final Build build;

        Narrowing(Build build) {
            this.build = build;
        }
    }

    static List<org.junit.jupiter.params.provider.Arguments> narrowings() {
        List<org.junit.jupiter.params.provider.Arguments> out = new java.util.ArrayList<>();
        for (NarrowFormats f : NarrowFormats.values()) {
            for (Narrowing w : Narrowing.values()) {
                out.add(org.junit.jupiter.params.provider.Arguments.of(f, w));
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{1} to {0}")
    @org.junit.jupiter.params.provider.MethodSource("narrowings")
    void everyNarrowingRoundsHalfToEvenOnce(NarrowFormats f, Narrowing where) {
        float[] probes = f.midpointProbes(f.bits == 16 ? 61 : 1);
        int n = probes.length;
        Fixtures p = where.build.add(f.dtype, n, Fixtures.program().input("t", Tensor.fromFloats(DType.F32, Shape.of(n), probes)));
        RunResult r = p.run();
        assertThat(r.faults()).as(where + " to " + f).isEmpty();
        Tensor narrowed = r.trace().get("narrow").getFirst();
        assertThat(narrowed.dtype()).isEqualTo(f.dtype);
        float[] actual = narrowed.toFloats();
        for (int i = 0; i < n; i++) {
            double expected = f.round(probes[i]);
            assertThat(Double.compare(actual[i], expected)).as(where + " to " + f + ": " + probes[i] + " (" + Float.toHexString(probes[i])
                    + ") became " + actual[i] + ", the format's nearest-even is " + expected).isZero();
        }
    }

    private static Tensor genericTo(DType out, String expr, float[] in) {
        try {
            RunResult r = Fixtures.program().input("t", Tensor.fromFloats(DType.F32, Shape.of(in.length), in)).buffer("X", DType.F32, in.length)
                    .loadAll("l", "t", "X", CORE).buffer("N", out, in.length).generic("g", List.of("X"), "N", ExprSyntax.parse(expr)).run();
            assertThat(r.faults()).isEmpty();
            return r.trace().get("g").getFirst();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static short[] shorts(int count) {
        short[] s = new short[count];
        for (int i = 0; i < count; i++) {
            s[i] = (short) i;
        }
        return s;
    }

    private static byte[] bytes(int count) {
        byte[] b = new byte[count];
        for (int i = 0; i < count; i++) {
            b[i] = (byte) i;
        }
        return b;
    }
}
