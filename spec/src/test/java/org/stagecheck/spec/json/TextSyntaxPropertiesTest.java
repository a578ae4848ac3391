package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
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

    /** Names as the syntaxes define them: a letter or '_' then letters, digits, '_' and '.'. */
    static Arbitrary<String> identifiers() {
        return Combinators.combine(
                Arbitraries.chars().alpha().with('_'),
                Arbitraries.strings().alpha().numeric().withChars("_.").ofMaxLength(10)).as((c, s) -> c + s);
    }

    static Arbitrary<Expr> leaves() {
        return Arbitraries.oneOf(
                Arbitraries.integers().greaterOrEqual(0).map(Expr.In::new),
                Arbitraries.doubles().withStandardSpecialValues().map(Expr.FloatConst::new),
                Arbitraries.longs().map(bits -> new Expr.FloatConst(Double.longBitsToDouble(bits))),
                Arbitraries.integers().map(Expr.IntConst::new),
                identifiers().map(Expr.ParamRef::new),
                Arbitraries.integers().greaterOrEqual(0).map(Expr.Index::new));
    }

    static Arbitrary<Expr> exprs(int depth) {
        if (depth == 0) {
            return leaves();
        }
        Arbitrary<Expr> apply = Arbitraries.of(Fn.class).flatMap(fn ->
                exprs(depth - 1).list().ofSize(fn.arity()).map(args -> (Expr) new Expr.Apply(fn, args)));
        Arbitrary<Expr> cast = Combinators.combine(Arbitraries.of(DType.class), exprs(depth - 1)).as(Expr.Cast::new);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(2, leaves()),
                net.jqwik.api.Tuple.of(3, Arbitraries.lazy(() -> apply)),
                net.jqwik.api.Tuple.of(1, Arbitraries.lazy(() -> cast)));
    }

    @Provide
    Arbitrary<Expr> expressions() {
        return exprs(5);
    }

    /** A chain of unary functions and casts as deep as the parser accepts. */
    @Provide
    Arbitrary<Expr> deepChains() {
        return Arbitraries.of(Fn.NEG, Fn.EXP, Fn.NOT, Fn.ABS).list().ofSize(ExprSyntax.MAX_DEPTH).map(fns -> {
            Expr e = Expr.in(0);
            for (Fn fn : fns) {
                e = Expr.apply(fn, e);
            }
            return e;
        });
    }

    @Property(tries = 500)
    void printedExpressionsParseBackEqual(@ForAll("expressions") Expr e) throws TextSyntaxException {
        assertThat(ExprSyntax.parse(Expr.print(e))).isEqualTo(e);
    }

    @Property(tries = 20)
    void expressionsAsDeepAsTheLimitParseBackEqual(@ForAll("deepChains") Expr e) throws TextSyntaxException {
        assertThat(ExprSyntax.parse(Expr.print(e))).isEqualTo(e);
    }

    @Property(tries = 200)
    void printingIsInsensitiveToExtraSpaces(@ForAll("expressions") Expr e) throws TextSyntaxException {
        String spaced = Expr.print(e).replace("(", " ( ").replace(",", " , ").replace(")", " ) ");
        assertThat(ExprSyntax.parse("  " + spaced + "\t")).isEqualTo(e);
    }

    /**
     * Coefficients and constants over the whole long range but {@code Long.MIN_VALUE}, whose
     * magnitude has no long: {@code Offset.toString} prints it as {@code "--9223372036854775808"}
     * (reported to the lead; see the report of issue #2).
     */
    static Arbitrary<Long> longsButMin() {
        return Arbitraries.oneOf(
                Arbitraries.longs().between(Long.MIN_VALUE + 1, Long.MAX_VALUE),
                Arbitraries.longs().between(-3, 3),
                Arbitraries.of(Long.MIN_VALUE + 1, Long.MAX_VALUE, 1L, -1L, 0L));
    }

    @Provide
    Arbitrary<Offset> offsets() {
        Arbitrary<Offset.Term> terms = Arbitraries.oneOf(
                Combinators.combine(longsButMin(), identifiers()).as(Offset.Term.OfParam::new),
                Combinators.combine(longsButMin(), identifiers()).as(Offset.Term.OfBuffer::new));
        return Combinators.combine(longsButMin(), terms.list().ofMaxSize(4)).as(Offset::new);
    }

    @Property(tries = 500)
    void printedOffsetsParseBackEqual(@ForAll("offsets") Offset o) throws TextSyntaxException {
        assertThat(OffsetSyntax.parse(o.toString())).isEqualTo(o);
    }

    @Property(tries = 100)
    void offsetBuffersAreExactlyTheAtTerms(@ForAll("offsets") Offset o) throws TextSyntaxException {
        List<String> buffers = OffsetSyntax.parse(o.toString()).buffers();
        assertThat(buffers).isEqualTo(o.terms().stream()
                .filter(t -> t instanceof Offset.Term.OfBuffer).map(t -> ((Offset.Term.OfBuffer) t).buffer()).toList());
    }
}
