package org.stagecheck.cuda.lower;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Shape;

/**
 * {@code Generic} expressions as C (docs/semantics.md, "Compute(Generic)"), for {@code Generic},
 * the {@code AllReduce} combine and {@code Scalar} bodies. The tree is written bottom-up as one
 * local per node, so both branches of a select are evaluated (and fault) as in the reference.
 * FLOAT is f32 through the sc_ helpers, INT is wrapping i32, BOOL is bool; inputs are read
 * broadcast numpy-style, and the value is rounded once to each output's dtype.
 */
final class ExprLowering {
    private enum Type { FLOAT, INT, BOOL }

    private record Value(String name, Type type) {}

    private final Emit x;
    private final List<Placed> inputs;
    private final List<String> inputIndex;
    private final Map<Integer, Value> inputValues = new HashMap<>();
    private int next;

    /**
     * @param inputIndex per input, the C expression of the element it reads for this output element
     */
    private ExprLowering(Emit x, List<Placed> inputs, List<String> inputIndex) {
        this.x = x;
        this.inputs = inputs;
        this.inputIndex = inputIndex;
    }

    /** A Generic (or AllReduce combine) stage: one thread per output element. */
    static void elementwise(Emit x, Expr expr, String what) {
        List<Placed> ins = new ArrayList<>();
        for (String in : x.stage.ins()) {
            ins.add(x.in(in));
        }
        List<Placed> outs = new ArrayList<>();
        for (String out : x.stage.outs()) {
            outs.add(x.out(out));
        }
        Shape outShape = x.plan.buffer(x.stage.outs().getFirst()).shape();
        int[] dims = outShape.toArray();
        x.begin("", outShape.elementCount(), what + ": " + Expr.print(expr));
        for (int i = 0; i < ins.size(); i++) {
            x.pointer("in" + i, ins.get(i), false);
        }
        for (int o = 0; o < outs.size(); o++) {
            x.pointer("out" + o, outs.get(o), true);
        }
        x.open("SC_FOR_EACH(e, n) {");
        boolean needCoords = usesIndex(expr);
        List<String> index = new ArrayList<>();
        for (Placed in : ins) {
            String ix = broadcastIndex(in.shape(), dims);
            needCoords |= !ix.equals("e");
            index.add(ix);
        }
        if (needCoords) {
            x.coordinates("e", "i", dims);
        }
        ExprLowering l = new ExprLowering(x, ins, index);
        Value v = l.gen(expr);
        for (int o = 0; o < outs.size(); o++) {
            if (!outs.get(o).shape().equals(outShape)) {
                throw new LoweringException("every output receives the same value, but they differ in shape");
            }
            x.line("out" + o + "[e] = " + store(outs.get(o).dtype(), v) + ";");
        }
        x.close();
        x.end();
    }

    /** A Scalar stage: one thread computes every result from the one-element inputs, then writes them all. */
    static void scalar(Emit x, List<Expr> results) {
        List<Placed> ins = new ArrayList<>();
        List<String> index = new ArrayList<>();
        for (String in : x.stage.ins()) {
            ins.add(x.in(in));
            index.add("0");
        }
        x.begin("", 1, "a single-thread kernel: " + results.size() + " result(s), all computed before any is written");
        for (int i = 0; i < ins.size(); i++) {
            x.pointer("in" + i, ins.get(i), false);
        }
        List<Placed> outs = new ArrayList<>();
        for (int o = 0; o < x.stage.outs().size(); o++) {
            Placed p = x.out(x.stage.outs().get(o));
            outs.add(p);
            x.pointer("out" + o, p, true);
        }
        if (outs.size() != results.size()) {
            throw new LoweringException("the body has " + results.size() + " results but the stage " + outs.size() + " outputs");
        }
        x.open("SC_FOR_EACH(e, n) {");
        ExprLowering l = new ExprLowering(x, ins, index);
        List<Value> values = new ArrayList<>();
        for (int r = 0; r < results.size(); r++) {
            x.line("// result " + r + ": " + CText.comment(Expr.print(results.get(r))));
            values.add(l.gen(results.get(r)));
        }
        for (int o = 0; o < outs.size(); o++) {
            x.line("out" + o + "[0] = " + store(outs.get(o).dtype(), values.get(o)) + ";");
        }
        x.close();
        x.end();
    }

    /** The flat index of the input element (shape {@code in}) broadcast to output element {@code i0..}. */
    static String broadcastIndex(Shape in, int[] out) {
        if (java.util.Arrays.equals(in.toArray(), out)) {
            return "e";
        }
        int ro = out.length;
        int ri = in.rank();
        if (ri > ro) {
            throw new LoweringException("an input of shape " + in + " does not broadcast to " + Shape.of(out));
        }
        long[] strides = in.strides();
        List<String> terms = new ArrayList<>();
        for (int a = 0; a < ro; a++) {
            int ia = a - (ro - ri);
            if (ia < 0) {
                continue;
            }
            int d = in.dim(ia);
            if (d == out[a]) {
                if (d != 1) {
                    terms.add(strides[ia] == 1 ? "i" + a : "i" + a + " * " + strides[ia]);
                }
            } else if (d != 1) {
                throw new LoweringException("an input of shape " + in + " does not broadcast to " + Shape.of(out));
            }
        }
        return terms.isEmpty() ? "0" : String.join(" + ", terms);
    }

    private static boolean usesIndex(Expr e) {
        return switch (e) {
            case Expr.Index ix -> true;
            case Expr.Apply a -> a.args().stream().anyMatch(ExprLowering::usesIndex);
            case Expr.Cast c -> usesIndex(c.arg());
            case Expr.In in -> false;
            case Expr.FloatConst c -> false;
            case Expr.IntConst c -> false;
            case Expr.ParamRef p -> false;
        };
    }

    private static String store(DType dtype, Value v) {
        return switch (v.type()) {
            case FLOAT -> CText.fromFloat(dtype, v.name());
            case INT -> CText.fromInt(dtype, v.name());
            case BOOL -> CText.fromInt(dtype, "(" + v.name() + " ? 1 : 0)");
        };
    }

    private static String cType(Type t) {
        return switch (t) {
            case FLOAT -> "float";
            case INT -> "int";
            case BOOL -> "bool";
        };
    }

    private Value let(Type t, String expr) {
        String name = "v" + next++;
        x.line(cType(t) + " " + name + " = " + expr + ";");
        return new Value(name, t);
    }

    private Value gen(Expr e) {
        return switch (e) {
            case Expr.In in -> input(in.index());
            case Expr.FloatConst c -> let(Type.FLOAT, CText.floatLiteral(c.value()));
            case Expr.IntConst c -> let(Type.INT, CText.intLiteral(c.value()));
            case Expr.ParamRef p -> let(Type.INT, "(int)P[" + x.plan.param(p.name()) + "]");
            case Expr.Index ix -> let(Type.INT, "(int)i" + ix.axis());
            case Expr.Cast c -> cast(c.dtype(), gen(c.arg()));
            case Expr.Apply a -> apply(a.fn(), a.args());
        };
    }

    private Value input(int i) {
        if (i >= inputs.size()) {
            throw new LoweringException("the expression reads in" + i + " but the stage has " + inputs.size() + " inputs");
        }
        Value cached = inputValues.get(i);
        if (cached != null) {
            return cached;
        }
        DType d = inputs.get(i).dtype();
        Value v = let(CText.computesAsInt(d) ? Type.INT : Type.FLOAT, CText.read(d, "in" + i, inputIndex.get(i)));
        inputValues.put(i, v);
        return v;
    }

    private Value cast(DType dtype, Value v) {
        if (CText.computesAsInt(dtype)) {
            return switch (v.type()) {
                case FLOAT -> let(Type.INT, "sc_f2i(" + v.name() + ")");
                case INT -> v;
                case BOOL -> let(Type.INT, v.name() + " ? 1 : 0");
            };
        }
        String f = switch (v.type()) {
            case FLOAT -> v.name();
            case INT -> "sc_i2f(" + v.name() + ")";
            case BOOL -> "(" + v.name() + " ? 1.0f : 0.0f)";
        };
        return let(Type.FLOAT, switch (dtype) {
            case F32, I32 -> f;
            case BF16 -> "sc_round_bf16(" + f + ")";
            case F16 -> "sc_round_f16(" + f + ")";
            case E4M3 -> "sc_round_e4m3(" + f + ")";
            case E5M2 -> "sc_round_e5m2(" + f + ")";
        });
    }

    private Value apply(Fn fn, List<Expr> args) {
        List<Value> a = new ArrayList<>();
        for (Expr arg : args) {
            a.add(gen(arg));
        }
        Value p = a.getFirst();
        return switch (fn.kind()) {
            case ARITH -> arith(fn, p, a.get(1));
            case NUMERIC_UNARY -> switch (p.type()) {
                case FLOAT -> let(Type.FLOAT, (fn == Fn.NEG ? "-" : "fabsf(") + p.name() + (fn == Fn.NEG ? "" : ")"));
                case INT -> let(Type.INT, (fn == Fn.NEG ? "sc_ineg(" : "sc_iabs(") + p.name() + ")");
                case BOOL -> throw typeError(fn);
            };
            case FLOAT_UNARY -> {
                if (p.type() != Type.FLOAT) {
                    throw typeError(fn);
                }
                yield let(Type.FLOAT, "sc_" + fn.spelling() + "(" + p.name() + ")");
            }
            case COMPARE -> {
                Value q = a.get(1);
                if (p.type() != q.type() || p.type() == Type.BOOL) {
                    throw typeError(fn);
                }
                String op = switch (fn) {
                    case EQ -> "==";
                    case NE -> "!=";
                    case LT -> "<";
                    case LE -> "<=";
                    case GT -> ">";
                    case GE -> ">=";
                    // the caller switched on fn.kind(): no other function reaches here
                    case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS,
                         AND, OR, NOT, SELECT -> throw notOfKind(fn);
                };
                yield let(Type.BOOL, p.name() + " " + op + " " + q.name());
            }
            case LOGIC -> {
                for (Value v : a) {
                    if (v.type() != Type.BOOL) {
                        throw typeError(fn);
                    }
                }
                yield switch (fn) {
                    case AND -> let(Type.BOOL, p.name() + " && " + a.get(1).name());
                    case OR -> let(Type.BOOL, p.name() + " || " + a.get(1).name());
                    case NOT -> let(Type.BOOL, "!" + p.name());
                    case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS,
                         EQ, NE, LT, LE, GT, GE, SELECT -> throw notOfKind(fn);
                };
            }
            case SELECT -> {
                Value t = a.get(1);
                Value f = a.get(2);
                if (p.type() != Type.BOOL || t.type() != f.type()) {
                    throw typeError(fn);
                }
                yield let(t.type(), p.name() + " ? " + t.name() + " : " + f.name());
            }
        };
    }

    private Value arith(Fn fn, Value p, Value q) {
        if (p.type() != q.type() || p.type() == Type.BOOL) {
            throw typeError(fn);
        }
        // the runtime header names the helpers after the function: sc_fadd, sc_iadd, sc_frem, ...
        if (p.type() == Type.FLOAT) {
            return let(Type.FLOAT, "sc_f" + fn.spelling() + "(" + p.name() + ", " + q.name() + ")");
        }
        if (fn == Fn.DIV || fn == Fn.REM) {
            x.line("if (" + q.name() + " == 0) sc_fault(F, " + x.index + ", SC_FAULT_DIV_BY_ZERO, e, 0);");
        }
        return let(Type.INT, "sc_i" + fn.spelling() + "(" + p.name() + ", " + q.name() + ")");
    }

    private static IllegalStateException notOfKind(Fn fn) {
        return new IllegalStateException(fn.spelling() + ", a function of kind " + fn.kind() + ", reached the lowering of another kind");
    }

    private static LoweringException typeError(Fn fn) {
        return new LoweringException(fn.spelling() + " is applied to values of the wrong type");
    }
}
