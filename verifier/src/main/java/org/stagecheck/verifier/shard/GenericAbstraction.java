package org.stagecheck.verifier.shard;

import java.util.List;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.verifier.Code;

/**
 * The abstract evaluation of a {@code Generic} expression over partial-ness (docs/verifier.md,
 * "Generic expressions"). Every value of the expression is one of:
 * <ul>
 *   <li>{@code Zero}: the constant 0 (adding it or selecting it keeps a partial a partial);</li>
 *   <li>{@code Repl}: a value that is the same on every chip: a full input, a constant, a
 *       parameter, an element index;</li>
 *   <li>{@code Sh}: a shard, a local value that differs per chip;</li>
 *   <li>{@code Pa}: a partial.</li>
 * </ul>
 * Rules, which are exactly the linear maps that keep a partition: {@code add/sub} of two partials
 * over the same partition; {@code add/sub/select} with zero; {@code mul} by, and {@code div} by,
 * a replicated value; {@code neg}; a cast to a floating dtype (a rounding, like the per-stage
 * rounding every value gets). Anything else that meets a partial is an error: a partial plus a
 * full or shard value ({@link Code#PARTIAL_PLUS_FULL}), two different partitions
 * ({@link Code#PARTIAL_PARTITION_MISMATCH}), or any non-linear function, a product of two
 * partials, a product with a per-chip shard, a cast to an integer, a partial as a select's
 * condition or a divisor ({@link Code#PARTIAL_NONLINEAR}). Only sum-partials are linear; a max-
 * or min-partial passes only through floating casts.
 *
 * <p>One instance per evaluation; it records the first problem and evaluation stops there.
 */
final class GenericAbstraction {

    sealed interface Value {}

    record Zero() implements Value {}

    /** {@code port} is the input that gave the value, or -1 for a constant, parameter or index. */
    record Repl(int port) implements Value {}

    record Sh(Fact.Shard shard, int port) implements Value {}

    record Pa(Fact.Partial partial) implements Value {}

    /** An input that is already tainted by an earlier finding. */
    record Taint() implements Value {}

    /** The first rule the expression broke. */
    record Problem(Code code, String what, Fact.Partial partial, int fullPort) {}

    private final List<Fact> inputs;
    private final List<String> names;
    private Problem problem;

    /** {@code inputs[i]} is the fact of input port i (null: unwritten), {@code names[i]} its buffer. */
    GenericAbstraction(List<Fact> inputs, List<String> names) {
        this.inputs = inputs;
        this.names = names;
    }

    private String name(int port) {
        return port >= 0 && port < names.size() ? names.get(port) : "in" + port;
    }

    Problem problem() {
        return problem;
    }

    Value eval(Expr e) {
        if (problem != null) {
            return new Taint();
        }
        return switch (e) {
            case Expr.In in -> input(in.index());
            case Expr.FloatConst c -> c.value() == 0.0 ? new Zero() : new Repl(-1);
            case Expr.IntConst c -> c.value() == 0 ? new Zero() : new Repl(-1);
            case Expr.ParamRef p -> new Repl(-1);
            case Expr.Index ix -> new Repl(-1);
            case Expr.Cast c -> cast(c, eval(c.arg()));
            case Expr.Apply a -> apply(a);
        };
    }

    private Value input(int port) {
        Fact f = port < inputs.size() ? inputs.get(port) : null;
        if (f == null) {
            return new Repl(port); // unwritten or missing: the ordering and structural checks report it
        }
        return switch (f) {
            case Fact.Full full -> new Repl(port);
            case Fact.Shard s -> new Sh(s, port);
            case Fact.Partial p -> new Pa(p);
            case Fact.Tainted t -> new Taint();
        };
    }

    private Value cast(Expr.Cast c, Value arg) {
        if (arg instanceof Pa pa && c.dtype().isInteger()) {
            return fail(Code.PARTIAL_NONLINEAR, "casts the " + pa.partial().describe() + " to " + c.dtype().jsonName(), pa.partial(), -1);
        }
        return arg;
    }

    private Value apply(Expr.Apply a) {
        Value[] args = new Value[a.args().size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = eval(a.args().get(i));
            if (args[i] instanceof Taint) {
                return args[i];
            }
        }
        Fn fn = a.fn();
        for (Value v : args) {
            if (v instanceof Pa pa && pa.partial().pool() != ReducePool.SUM) {
                return fail(Code.PARTIAL_NONLINEAR, fn.spelling() + " meets the " + pa.partial().describe()
                        + ", which only a " + pa.partial().pool().jsonName() + " all-reduce may take", pa.partial(), -1);
            }
        }
        return switch (fn) {
            case ADD -> additive(fn, args[0], args[1]);
            case SUB -> additive(fn, args[0], args[1]);
            case NEG -> args[0];
            case MUL -> product(fn, args[0], args[1], false);
            case DIV -> product(fn, args[0], args[1], true);
            case SELECT -> select(args);
            case MAX, MIN, REM, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS,
                 EQ, NE, LT, LE, GT, GE, AND, OR, NOT -> nonlinear(fn, args);
        };
    }

    private Value additive(Fn fn, Value x, Value y) {
        if (x instanceof Zero) {
            return y;
        }
        if (y instanceof Zero) {
            return x;
        }
        if (x instanceof Pa px && y instanceof Pa py) {
            if (px.partial().samePartition(py.partial())) {
                return x;
            }
            return fail(Code.PARTIAL_PARTITION_MISMATCH, fn.spelling() + " combines the " + px.partial().describe()
                    + " with the " + py.partial().describe(), px.partial(), -1);
        }
        if (x instanceof Pa px) {
            return fail(Code.PARTIAL_PLUS_FULL, fn.spelling() + " meets " + fullName(y) + " with the " + px.partial().describe(), px.partial(), portOf(y));
        }
        if (y instanceof Pa py) {
            return fail(Code.PARTIAL_PLUS_FULL, fn.spelling() + " meets " + fullName(x) + " with the " + py.partial().describe(), py.partial(), portOf(x));
        }
        return mergeLocal(x, y);
    }

    private Value product(Fn fn, Value x, Value y, boolean division) {
        if (x instanceof Zero || (!division && y instanceof Zero)) {
            return new Zero();
        }
        if (x instanceof Pa px && y instanceof Pa) {
            return fail(Code.PARTIAL_NONLINEAR, fn.spelling() + " multiplies two partials (" + px.partial().describe() + ")", px.partial(), -1);
        }
        if (y instanceof Pa py) {
            return division
                    ? fail(Code.PARTIAL_NONLINEAR, "div divides by the " + py.partial().describe(), py.partial(), -1)
                    : scale(fn, py, x);
        }
        if (x instanceof Pa px) {
            return scale(fn, px, y);
        }
        return mergeLocal(x, y);
    }

    /** A partial times (or over) a non-partial: linear only when the factor is the same on every chip. */
    private Value scale(Fn fn, Pa partial, Value factor) {
        if (factor instanceof Sh sh) {
            return fail(Code.PARTIAL_NONLINEAR, fn.spelling() + " scales the " + partial.partial().describe()
                    + " by shard buffer " + name(sh.port()) + " (from " + sh.shard().tensor() + "), which differs per chip", partial.partial(), sh.port());
        }
        return partial;
    }

    private Value select(Value[] args) {
        if (args[0] instanceof Pa pc) {
            return fail(Code.PARTIAL_NONLINEAR, "select uses the " + pc.partial().describe() + " as its condition", pc.partial(), -1);
        }
        Value x = args[1];
        Value y = args[2];
        if (args[0] instanceof Sh sc && (x instanceof Pa || y instanceof Pa)) {
            // each chip keeps a different set of elements of its partial: the sum is no partial
            // of anything (select(c, p, 0) is linear in p only for a c the same on every chip)
            Fact.Partial p = x instanceof Pa px ? px.partial() : ((Pa) y).partial();
            return fail(Code.PARTIAL_NONLINEAR, "select picks elements of the " + p.describe() + " by shard buffer "
                    + name(sc.port()) + " (from " + sc.shard().tensor() + "), which differs per chip", p, sc.port());
        }
        if (x instanceof Pa || y instanceof Pa) {
            Value merged = additive(Fn.SELECT, x, y);
            return merged;
        }
        return mergeLocal(mergeLocal(args[0], x), y);
    }

    private Value nonlinear(Fn fn, Value[] args) {
        for (Value v : args) {
            if (v instanceof Pa pa) {
                return fail(Code.PARTIAL_NONLINEAR, fn.spelling() + " is not linear and meets the " + pa.partial().describe(), pa.partial(), -1);
            }
        }
        Value acc = args[0];
        for (int i = 1; i < args.length; i++) {
            acc = mergeLocal(acc, args[i]);
        }
        return acc instanceof Zero ? new Repl(-1) : acc;
    }

    /**
     * Two non-partial values combined elementwise: a shard stays a shard when the other side is
     * replicated or the same shard; two different shards give a local value the analysis no longer
     * follows (docs/verifier.md, "Limits").
     */
    private static Value mergeLocal(Value x, Value y) {
        if (x instanceof Sh sx && y instanceof Sh sy) {
            boolean same = sx.shard().axis() == sy.shard().axis() && sx.shard().slices().equals(sy.shard().slices());
            return same ? x : new Repl(-1);
        }
        if (x instanceof Sh) {
            return x;
        }
        if (y instanceof Sh) {
            return y;
        }
        if (x instanceof Repl) {
            return x;
        }
        if (y instanceof Repl) {
            return y;
        }
        return x; // both Zero
    }

    private String fullName(Value v) {
        return switch (v) {
            case Repl r when r.port() >= 0 -> "full buffer " + name(r.port());
            case Repl r -> "a non-zero constant";
            case Sh s -> "shard buffer " + name(s.port());
            case Zero z -> "zero";
            case Pa p -> "a partial";
            case Taint t -> "a tainted value";
        };
    }

    private static int portOf(Value v) {
        return switch (v) {
            case Repl r -> r.port();
            case Sh s -> s.port();
            case Zero z -> -1;
            case Pa p -> -1;
            case Taint t -> -1;
        };
    }

    private Value fail(Code code, String what, Fact.Partial partial, int fullPort) {
        if (problem == null) {
            problem = new Problem(code, what, partial, fullPort);
        }
        return new Taint();
    }
}
