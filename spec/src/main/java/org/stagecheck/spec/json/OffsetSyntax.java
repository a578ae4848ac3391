package org.stagecheck.spec.json;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.ir.Offset;

/**
 * The textual form of an {@link Offset}: a sum of terms, each an integer, a parameter name, or
 * {@code @buffer}, optionally times an integer: {@code "64*pos + 8"}, {@code "@row - 1"},
 * {@code "pos*2"}. Constants are folded into one; the term order is kept.
 */
public final class OffsetSyntax {
    private final String text;
    private int at;

    private OffsetSyntax(String text) {
        this.text = text;
    }

    public static Offset parse(String text) throws TextSyntaxException {
        OffsetSyntax p = new OffsetSyntax(text);
        try {
            return p.sum();
        } catch (ArithmeticException | IllegalArgumentException e) {
            throw new TextSyntaxException(p.at, "offset arithmetic overflows 64 bits");
        }
    }

    private Offset sum() throws TextSyntaxException {
        long constant = 0;
        List<Offset.Term> terms = new ArrayList<>();
        int sign = 1;
        skipSpace();
        if (peek() == '-') {
            sign = -1;
            at++;
        }
        while (true) {
            skipSpace();
            long coef = sign;
            String source = null;
            boolean buffer = false;
            int termStart = at;
            if (Character.isDigit(peek())) {
                long n = integer();
                skipSpace();
                if (peek() == '*') {
                    at++;
                    skipSpace();
                    coef = Math.multiplyExact(coef, n);
                } else {
                    constant = Math.addExact(constant, Math.multiplyExact(sign, n));
                    source = "";
                }
            }
            if (source == null) {
                if (peek() == '@') {
                    buffer = true;
                    at++;
                }
                source = identifier();
                if (source.isEmpty()) {
                    throw new TextSyntaxException(at, "expected an integer, a parameter name or @buffer");
                }
                skipSpace();
                if (peek() == '*') {
                    at++;
                    skipSpace();
                    if (!Character.isDigit(peek())) {
                        throw new TextSyntaxException(at, "expected an integer coefficient after '*'");
                    }
                    coef = Math.multiplyExact(coef, integer());
                }
                terms.add(buffer ? new Offset.Term.OfBuffer(coef, source) : new Offset.Term.OfParam(coef, source));
            }
            skipSpace();
            if (at >= text.length()) {
                break;
            }
            char c = text.charAt(at);
            if (c == '+' || c == '-') {
                sign = c == '+' ? 1 : -1;
                at++;
            } else {
                throw new TextSyntaxException(at, "unexpected '" + c + "' in offset (term started at column " + (termStart + 1) + ")");
            }
        }
        return new Offset(constant, terms);
    }

    private long integer() throws TextSyntaxException {
        int s = at;
        while (Character.isDigit(peek())) {
            at++;
        }
        try {
            return Long.parseLong(text.substring(s, at));
        } catch (NumberFormatException e) {
            throw new TextSyntaxException(s, "integer out of range");
        }
    }

    private String identifier() {
        int s = at;
        if (at < text.length() && (Character.isLetter(text.charAt(at)) || text.charAt(at) == '_')) {
            while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '_' || text.charAt(at) == '.')) {
                at++;
            }
        }
        return text.substring(s, at);
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
