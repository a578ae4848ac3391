package org.stagecheck.spec.ir;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * An affine element offset along one axis of a tensor: {@code constant + sum(coefficient * source)},
 * where a source is a program parameter or a one-element i32 buffer (written by a {@code Scalar}
 * stage). Written in program files as text, e.g. {@code "64*pos + 8"} or {@code "@row_idx"}
 * (a leading {@code @} names a buffer).
 */
public record Offset(long constant, List<Term> terms) {
    /** One {@code coefficient * source} term. */
    public sealed interface Term {
        long coefficient();

        /** A parameter term. */
        record OfParam(long coefficient, String param) implements Term {
            public OfParam {
                Objects.requireNonNull(param, "param");
            }
        }

        /** A term reading the single element of an i32 buffer on the stage's core. */
        record OfBuffer(long coefficient, String buffer) implements Term {
            public OfBuffer {
                Objects.requireNonNull(buffer, "buffer");
            }
        }
    }

    public Offset {
        terms = List.copyOf(terms);
        // Long.MIN_VALUE has no positive twin: such an offset could be written but never read back.
        if (constant == Long.MIN_VALUE || terms.stream().anyMatch(t -> t.coefficient() == Long.MIN_VALUE)) {
            throw new IllegalArgumentException("an offset's constant and coefficients must lie within +-(2^63 - 1)");
        }
    }

    public static Offset constant(long c) {
        return new Offset(c, List.of());
    }

    public static Offset param(String name, long coefficient, long constant) {
        return new Offset(constant, List.of(new Term.OfParam(coefficient, name)));
    }

    public boolean isConstant() {
        return terms.isEmpty();
    }

    /** Buffers this offset reads: kind-internal references, renamed by buffer remaps. */
    public List<String> buffers() {
        if (terms.isEmpty()) {
            return List.of(); // a constant offset (the usual case; asked per stage by every check)
        }
        List<String> out = new ArrayList<>();
        for (Term t : terms) {
            switch (t) {
                case Term.OfBuffer b -> out.add(b.buffer());
                case Term.OfParam p -> { }
            }
        }
        return out;
    }

    public Offset remapBuffers(UnaryOperator<String> map) {
        List<Term> out = new ArrayList<>();
        for (Term t : terms) {
            out.add(switch (t) {
                case Term.OfBuffer b -> new Term.OfBuffer(b.coefficient(), map.apply(b.buffer()));
                case Term.OfParam p -> p;
            });
        }
        return new Offset(constant, out);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Term t : terms) {
            String src = switch (t) {
                case Term.OfBuffer b -> "@" + b.buffer();
                case Term.OfParam p -> p.param();
            };
            long c = t.coefficient();
            if (!sb.isEmpty()) {
                sb.append(c < 0 ? " - " : " + ");
                c = Math.abs(c);
            } else if (c < 0) {
                sb.append("-");
                c = Math.abs(c);
            }
            sb.append(c == 1 ? src : c + "*" + src);
        }
        if (sb.isEmpty()) {
            return Long.toString(constant);
        }
        if (constant != 0) {
            sb.append(constant < 0 ? " - " : " + ").append(Math.abs(constant));
        }
        return sb.toString();
    }
}
