package org.stagecheck.spec.ir;

/**
 * The functions of the {@code Generic} expression algebra (brief, "Stages": arithmetic,
 * comparisons, select, transcendental functions). The arity and typing rule of each function
 * is data here, so the parser, type checker and evaluators share one table.
 */
public enum Fn {
    // arithmetic on two values of one numeric type
    ADD("add", 2, Kind.ARITH), SUB("sub", 2, Kind.ARITH), MUL("mul", 2, Kind.ARITH),
    DIV("div", 2, Kind.ARITH), MAX("max", 2, Kind.ARITH), MIN("min", 2, Kind.ARITH),
    /** Integer remainder with the sign of the dividend (Java's {@code %}); float remainder likewise. */
    REM("rem", 2, Kind.ARITH),
    // unary on a numeric type
    NEG("neg", 1, Kind.NUMERIC_UNARY), ABS("abs", 1, Kind.NUMERIC_UNARY),
    // unary on floats only
    EXP("exp", 1, Kind.FLOAT_UNARY), LOG("log", 1, Kind.FLOAT_UNARY), SQRT("sqrt", 1, Kind.FLOAT_UNARY),
    RSQRT("rsqrt", 1, Kind.FLOAT_UNARY), TANH("tanh", 1, Kind.FLOAT_UNARY),
    SIGMOID("sigmoid", 1, Kind.FLOAT_UNARY), RECIP("recip", 1, Kind.FLOAT_UNARY),
    SIN("sin", 1, Kind.FLOAT_UNARY), COS("cos", 1, Kind.FLOAT_UNARY),
    // comparisons: two values of one numeric type to BOOL
    EQ("eq", 2, Kind.COMPARE), NE("ne", 2, Kind.COMPARE), LT("lt", 2, Kind.COMPARE),
    LE("le", 2, Kind.COMPARE), GT("gt", 2, Kind.COMPARE), GE("ge", 2, Kind.COMPARE),
    // logic on BOOL
    AND("and", 2, Kind.LOGIC), OR("or", 2, Kind.LOGIC), NOT("not", 1, Kind.LOGIC),
    /** {@code select(c, a, b)}: a where c holds, else b. */
    SELECT("select", 3, Kind.SELECT);

    /** The typing rule shared by a family of functions. */
    public enum Kind { ARITH, NUMERIC_UNARY, FLOAT_UNARY, COMPARE, LOGIC, SELECT }

    private final String spelling;
    private final int arity;
    private final Kind kind;

    Fn(String spelling, int arity, Kind kind) {
        this.spelling = spelling;
        this.arity = arity;
        this.kind = kind;
    }

    public String spelling() {
        return spelling;
    }

    public int arity() {
        return arity;
    }

    public Kind kind() {
        return kind;
    }

    /** Whether {@code f(a, b)} is linear in each argument with the other fixed (for partial sums). */
    public boolean isAdditive() {
        return this == ADD || this == SUB;
    }

    public static Fn fromSpelling(String s) {
        for (Fn f : values()) {
            if (f.spelling.equals(s)) {
                return f;
            }
        }
        return null;
    }
}
