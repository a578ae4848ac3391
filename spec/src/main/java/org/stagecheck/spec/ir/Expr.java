package org.stagecheck.spec.ir;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * An expression of the {@code Generic} algebra (brief, "Stages"): a closed, typed tree evaluated
 * per output element with numpy broadcasting of the inputs. Written in program files in the
 * textual form of {@link #toString()}, e.g. {@code add(in0, mul(in1, 2.0))}.
 */
public sealed interface Expr {
    /** The value of input port {@code index} at this element (broadcast to the output shape). */
    record In(int index) implements Expr {
        public In {
            if (index < 0) {
                throw new IllegalArgumentException("an input index cannot be negative");
            }
        }
    }

    /** A floating constant, typed FLOAT; rounded to f32 when evaluated in f32. */
    record FloatConst(double value) implements Expr {}

    /** An i32 constant. */
    record IntConst(int value) implements Expr {}

    /** The current value of a program parameter (an i32). */
    record ParamRef(String name) implements Expr {
        public ParamRef {
            Objects.requireNonNull(name, "name");
        }
    }

    /** The index (i32) of the current output element along {@code axis}. */
    record Index(int axis) implements Expr {
        public Index {
            if (axis < 0) {
                throw new IllegalArgumentException("an element index axis cannot be negative");
            }
        }
    }

    /** A function of the algebra applied to its arguments. */
    record Apply(Fn fn, List<Expr> args) implements Expr {
        public Apply {
            Objects.requireNonNull(fn, "fn");
            args = List.copyOf(args);
            if (args.size() != fn.arity()) {
                throw new IllegalArgumentException(fn.spelling() + " takes " + fn.arity() + " arguments, not " + args.size());
            }
        }
    }

    /**
     * Conversion to {@code dtype}'s value type, rounding through that dtype: {@code bf16(x)} rounds
     * x to bf16 (nearest-even) and goes on as FLOAT; {@code i32(x)} truncates toward zero,
     * saturating, NaN to 0; a BOOL converts to 0 or 1.
     */
    record Cast(DType dtype, Expr arg) implements Expr {
        public Cast {
            Objects.requireNonNull(dtype, "dtype");
            Objects.requireNonNull(arg, "arg");
        }
    }

    static Expr in(int i) {
        return new In(i);
    }

    static Expr f(double v) {
        return new FloatConst(v);
    }

    static Expr i(int v) {
        return new IntConst(v);
    }

    static Expr apply(Fn fn, Expr... args) {
        return new Apply(fn, List.of(args));
    }

    /** The largest input index used plus one: how many inputs the expression needs at least. */
    default int inputsUsed() {
        return switch (this) {
            case In in -> in.index() + 1;
            case FloatConst c -> 0;
            case IntConst c -> 0;
            case ParamRef p -> 0;
            case Index ix -> 0;
            case Apply a -> a.args().stream().mapToInt(Expr::inputsUsed).max().orElse(0);
            case Cast c -> c.arg().inputsUsed();
        };
    }

    /** Names of the parameters the expression reads, sorted. */
    default Set<String> paramsUsed() {
        Set<String> out = new TreeSet<>();
        collectParams(this, out);
        return out;
    }

    private static void collectParams(Expr e, Set<String> out) {
        switch (e) {
            case ParamRef p -> out.add(p.name());
            case Apply a -> a.args().forEach(x -> collectParams(x, out));
            case Cast c -> collectParams(c.arg(), out);
            case In in -> { }
            case FloatConst c -> { }
            case IntConst c -> { }
            case Index ix -> { }
        }
    }

    /** The canonical text of the expression, which {@code ExprSyntax} parses back to an equal tree. */
    static String print(Expr e) {
        return switch (e) {
            case In in -> "in" + in.index();
            case FloatConst c -> printFloat(c.value());
            case IntConst c -> Integer.toString(c.value());
            case ParamRef p -> "param(" + p.name() + ")";
            case Index ix -> "index(" + ix.axis() + ")";
            case Apply a -> a.fn().spelling() + "(" + String.join(", ", a.args().stream().map(Expr::print).toList()) + ")";
            case Cast c -> c.dtype().jsonName() + "(" + print(c.arg()) + ")";
        };
    }

    private static String printFloat(double v) {
        if (Double.isNaN(v)) {
            return "nan";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        String s = Double.toString(v);
        return s.contains(".") || s.contains("E") ? s : s + ".0";
    }
}
