package org.stagecheck.spec.validate;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.ValueType;

/**
 * The types of the expressions of one program (generic ops, all-reduce combines, scalar bodies),
 * each expression object typed once per input types and output rank (-1 for a scalar body): a
 * compiler's program applies one expression (one object, as the reader shares equal expressions)
 * at thousands of stages, and typing it again at each was
 * most of the validator's work and garbage on such programs. The type of an expression depends on
 * nothing else than those (and the program's parameter names, fixed for one program), so the
 * answer, a type or the {@link ExprTyper.TypeError} message, is the one typing it again gives.
 *
 * <p>At most {@value #MAX_EXPRESSIONS} expression objects are remembered; past them (a program
 * whose every stage has an expression object of its own) the rest are typed each time.
 */
final class ExprTypes {
    static final int MAX_EXPRESSIONS = 1 << 12;

    /** A type ({@code error} null) or the message of the type error. */
    private record Typed(ValueType[] inputs, int rank, ValueType type, String error) {
        boolean isFor(ValueType[] in, int r) {
            return rank == r && Arrays.equals(inputs, in);
        }
    }

    private final Set<String> paramNames;
    /** By expression object: each set of input types and rank it was typed for (almost always one). */
    private final Map<Expr, Typed[]> typed = new IdentityHashMap<>();

    ExprTypes(Set<String> paramNames) {
        this.paramNames = Set.copyOf(paramNames);
    }

    /** {@code new ExprTyper(inputs, paramNames, rank).type(expr)}, remembered. */
    ValueType type(Expr expr, ValueType[] inputs, int rank) throws ExprTyper.TypeError {
        Typed[] known = typed.get(expr);
        if (known != null) {
            for (Typed t : known) {
                if (t.isFor(inputs, rank)) {
                    return answer(t);
                }
            }
        }
        Typed t;
        try {
            t = new Typed(inputs.clone(), rank, new ExprTyper(List.of(inputs), paramNames, rank).type(expr), null);
        } catch (ExprTyper.TypeError e) {
            t = new Typed(inputs.clone(), rank, null, e.getMessage());
        }
        if (known != null) {
            Typed[] more = Arrays.copyOf(known, known.length + 1);
            more[known.length] = t;
            typed.put(expr, more);
        } else if (typed.size() < MAX_EXPRESSIONS) {
            typed.put(expr, new Typed[] {t});
        }
        return answer(t);
    }

    private static ValueType answer(Typed t) throws ExprTyper.TypeError {
        if (t.error() != null) {
            throw new ExprTyper.TypeError(t.error());
        }
        return t.type();
    }
}
