package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.stagecheck.proptest.Draw;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;

/**
 * The expression and offset text syntaxes round-trip: {@code ExprSyntax.parse(Expr.print(e))}
 * equals {@code e}, and {@code OffsetSyntax.parse(o.toString())} equals {@code o}, over random
 * trees (any function, any constant incl. NaN, infinities, -0.0 and subnormals, deep nesting up to
 * the parser's limit) and random offsets.
 */
class TextSyntaxPropertiesTest {
    private static final String LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

    /** Names as the syntaxes define them: a letter or '_' then letters, digits, '_' and '.'. */
    static String identifier(SplittableRandom r) {
        return Draw.string(r, LETTERS + "_", 1, 1) + Draw.string(r, LETTERS + "0123456789_.", 0, 10);
    }

    private static int nonNegative(SplittableRandom r) {
        return r.nextBoolean() ? r.nextInt(4) : r.nextInt(0, Integer.MAX_VALUE) + (r.nextInt(16) == 0 ? 1 : 0);
    }

    static Expr leaf(SplittableRandom r) {
        return switch (r.nextInt(6)) {
            case 0 -> new Expr.In(nonNegative(r));
            case 1 -> new Expr.FloatConst(Draw.anyDouble(r));
            case 2 -> new Expr.FloatConst(Double.longBitsToDouble(r.nextLong()));
            case 3 -> new Expr.IntConst(Draw.anyInt(r));
            case 4 -> new Expr.ParamRef(identifier(r));
            default -> new Expr.Index(nonNegative(r));
        };
    }

    /** A tree of at most {@code depth} applications and casts over leaves (2 : 3 : 1 leaf : apply : cast). */
    static Expr expr(SplittableRandom r, int depth) {
        int pick = depth == 0 ? 0 : r.nextInt(6);
        if (pick < 2) {
            return leaf(r);
        }
        if (pick < 5) {
            Fn fn = Draw.oneOf(r, Fn.class);
            List<Expr> args = new ArrayList<>();
            for (int i = 0; i < fn.arity(); i++) {
                args.add(expr(r, depth - 1));
            }
            return new Expr.Apply(fn, args);
        }
        return new Expr.Cast(Draw.oneOf(r, DType.class), expr(r, depth - 1));
    }

    static Expr expression(long seed) {
        return expr(new SplittableRandom(seed), 5);
    }

    /** A chain of unary functions as deep as the parser accepts. */
    static Expr deepChain(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Expr e = Expr.in(0);
        for (int i = 0; i < ExprSyntax.MAX_DEPTH; i++) {
            e = Expr.apply(Draw.oneOf(r, Fn.NEG, Fn.EXP, Fn.NOT, Fn.ABS), e);
        }
        return e;
    }

    @SeededProperty(tries = 500)
    void printedExpressionsParseBackEqual(long seed) throws TextSyntaxException {
        Expr e = expression(seed);
        assertThat(ExprSyntax.parse(Expr.print(e))).isEqualTo(e);
    }

    @SeededProperty(tries = 20)
    void expressionsAsDeepAsTheLimitParseBackEqual(long seed) throws TextSyntaxException {
        Expr e = deepChain(seed);
        assertThat(ExprSyntax.parse(Expr.print(e))).isEqualTo(e);
    }

    @SeededProperty(tries = 200)
    void printingIsInsensitiveToExtraSpaces(long seed) throws TextSyntaxException {
        Expr e = expression(seed);
        String spaced = Expr.print(e).replace("(", " ( ").replace(",", " , ").replace(")", " ) ");
        assertThat(ExprSyntax.parse("  " + spaced + "\t")).isEqualTo(e);
    }

    /**
     * Coefficients and constants over the whole long range but {@code Long.MIN_VALUE}, whose
     * magnitude has no long: {@code Offset.toString} would print it as {@code "--9223372036854775808"}.
     */
    static long longButMin(SplittableRandom r) {
        return switch (r.nextInt(3)) {
            case 0 -> r.nextLong(Long.MIN_VALUE + 1, Long.MAX_VALUE) + (r.nextInt(64) == 0 ? 1 : 0);
            case 1 -> r.nextLong(-3, 4);
            default -> Draw.oneOf(r, Long.MIN_VALUE + 1, Long.MAX_VALUE, 1L, -1L, 0L);
        };
    }

    static Offset offset(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        long constant = longButMin(r);
        List<Offset.Term> terms = Draw.list(r, 0, 4, () -> r.nextBoolean()
                ? new Offset.Term.OfParam(longButMin(r), identifier(r))
                : new Offset.Term.OfBuffer(longButMin(r), identifier(r)));
        return new Offset(constant, terms);
    }

    @SeededProperty(tries = 500)
    void printedOffsetsParseBackEqual(long seed) throws TextSyntaxException {
        Offset o = offset(seed);
        assertThat(OffsetSyntax.parse(o.toString())).isEqualTo(o);
    }

    @SeededProperty(tries = 100)
    void offsetBuffersAreExactlyTheAtTerms(long seed) throws TextSyntaxException {
        Offset o = offset(seed);
        List<String> buffers = OffsetSyntax.parse(o.toString()).buffers();
        assertThat(buffers).isEqualTo(o.terms().stream()
                .filter(t -> t instanceof Offset.Term.OfBuffer).map(t -> ((Offset.Term.OfBuffer) t).buffer()).toList());
    }
}
