package org.stagecheck.spec.json;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;

/**
 * The textual form of {@link Expr}, as written in program files:
 * <pre>
 * expr   := number | "in" digits | "nan" | "inf" | "-inf"
 *         | "param(" name ")" | "index(" axis ")"
 *         | dtype "(" expr ")"             -- a cast: f32, bf16, f16, i32, e4m3, e5m2
 *         | fn "(" expr ("," expr)* ")"    -- add, sub, mul, ..., select
 * number := an integer (an i32 constant) or a decimal with "." or an exponent (a float constant)
 * </pre>
 * {@code Expr.print} writes this form and this class reads it back to an equal tree.
 */
public final class ExprSyntax {
    /** Expressions deeper than this are refused: no input may overflow the stack. */
    public static final int MAX_DEPTH = 200;

    private final String text;
    private int at;

    private ExprSyntax(String text) {
        this.text = text;
    }

    public static Expr parse(String text) throws TextSyntaxException {
        ExprSyntax p = new ExprSyntax(text);
        p.skipSpace();
        Expr e = p.expr(0);
        p.skipSpace();
        if (p.at < text.length()) {
            throw new TextSyntaxException(p.at, "unexpected '" + text.charAt(p.at) + "' after the end of the expression");
        }
        return e;
    }

    /**
     * {@code name} matches {@code in[0-9]+}, checked by hand: this runs for every input of every
     * expression of a million-stage program, and {@link String#matches} compiles its pattern
     * on each call.
     */
    private static boolean isInputName(String name) {
        if (name.length() < 3 || !name.startsWith("in")) {
            return false;
        }
        for (int i = 2; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private Expr expr(int depth) throws TextSyntaxException {
        if (depth > MAX_DEPTH) {
            throw new TextSyntaxException(at, "expression nested deeper than " + MAX_DEPTH + " levels");
        }
        skipSpace();
        if (at >= text.length()) {
            throw new TextSyntaxException(at, "expected an expression, found the end of the text");
        }
        char c = text.charAt(at);
        if (Character.isDigit(c) || c == '-' || c == '.') {
            return number();
        }
        if (!Character.isLetter(c)) {
            throw new TextSyntaxException(at, "expected an expression, found '" + c + "'");
        }
        int start = at;
        String name = identifier();
        if (isInputName(name)) {
            try {
                return Expr.in(Integer.parseInt(name.substring(2)));
            } catch (NumberFormatException e) {
                throw new TextSyntaxException(start, "input index out of range in '" + name + "'");
            }
        }
        if (name.equals("nan")) {
            return Expr.f(Double.NaN);
        }
        if (name.equals("inf")) {
            return Expr.f(Double.POSITIVE_INFINITY);
        }
        skipSpace();
        expect('(', "'(' after '" + name + "'");
        Expr result;
        switch (name) {
            case "param" -> {
                skipSpace();
                int s = at;
                String p = identifier();
                if (p.isEmpty()) {
                    throw new TextSyntaxException(s, "expected a parameter name");
                }
                result = new Expr.ParamRef(p);
            }
            case "index" -> {
                skipSpace();
                int s = at;
                Expr n = number();
                if (!(n instanceof Expr.IntConst ic) || ic.value() < 0) {
                    throw new TextSyntaxException(s, "index(axis) takes a non-negative integer axis");
                }
                result = new Expr.Index(ic.value());
            }
            // any other name is a cast (a dtype's name), a function of Fn, or unknown: looked up in their tables
            default -> {
                DType cast = DType.fromJsonName(name);
                Fn fn = Fn.fromSpelling(name);
                if (cast == null && fn == null) {
                    throw new TextSyntaxException(start, "unknown function '" + name + "'");
                }
                List<Expr> args = new ArrayList<>();
                skipSpace();
                if (peek() != ')') {
                    args.add(expr(depth + 1));
                    skipSpace();
                    while (peek() == ',') {
                        at++;
                        args.add(expr(depth + 1));
                        skipSpace();
                    }
                }
                if (peek() != ')') {
                    throw new TextSyntaxException(at, "expected ',' or ')' after an argument of '" + name + "'"
                            + (at < text.length() ? ", found '" + text.charAt(at) + "'" : ", found the end of the text"));
                }
                int arity = cast != null ? 1 : fn.arity();
                if (args.size() != arity) {
                    throw new TextSyntaxException(start, name + " takes " + arity + " argument" + (arity == 1 ? "" : "s") + ", not " + args.size());
                }
                result = cast != null ? new Expr.Cast(cast, args.get(0)) : new Expr.Apply(fn, args);
            }
        }
        skipSpace();
        expect(')', "')' to close '" + name + "('");
        return result;
    }

    private Expr number() throws TextSyntaxException {
        int start = at;
        if (peek() == '-') {
            at++;
            if (text.startsWith("inf", at)) {
                at += 3;
                return Expr.f(Double.NEGATIVE_INFINITY);
            }
        }
        boolean integral = true;
        while (at < text.length()) {
            char c = text.charAt(at);
            if (Character.isDigit(c)) {
                at++;
            } else if (c == '.' || c == 'e' || c == 'E') {
                integral = false;
                at++;
                if ((c == 'e' || c == 'E') && (peek() == '-' || peek() == '+')) {
                    at++;
                }
            } else {
                break;
            }
        }
        String lit = text.substring(start, at);
        if (integral) {
            try {
                return Expr.i(Integer.parseInt(lit));
            } catch (NumberFormatException e) {
                throw new TextSyntaxException(start, "'" + lit + "' is not an i32 constant");
            }
        }
        try {
            double d = Double.parseDouble(lit);
            if (Double.isInfinite(d)) {
                throw new TextSyntaxException(start, "'" + lit + "' is out of range for a float constant");
            }
            return Expr.f(d);
        } catch (NumberFormatException e) {
            throw new TextSyntaxException(start, "'" + lit + "' is not a number");
        }
    }

    private String identifier() {
        int s = at;
        while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_' || text.charAt(at) == '.')) {
            at++;
        }
        return text.substring(s, at);
    }

    private void expect(char c, String what) throws TextSyntaxException {
        if (peek() != c) {
            throw new TextSyntaxException(at, "expected " + what + (at < text.length() ? ", found '" + text.charAt(at) + "'" : ", found the end of the text"));
        }
        at++;
    }

    private char peek() {
        return at < text.length() ? text.charAt(at) : '\0';
    }

    private void skipSpace() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }
}
