package org.stagecheck.verifier.soundness;

import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.verifier.corpus.AuthoredCase;

/**
 * Runs an authored split (mutated or not) and the unsplit cut on the author's sample inputs and
 * weights, the split's tensors cut from the unsplit ones by {@link Author#bindSplit}, and compares
 * every output and every state shard (the KV caches) with the unsplit run.
 *
 * <p>Tolerance {@value #RELATIVE_TOLERANCE} of {@code max(1, max |unsplit|)}, the author's own
 * split-equivalence tolerance (docs/author.md, "Laws"): the row-split projections re-associate
 * the f32 contraction sums, and the RMSNorms, softmax and later layers carry that rounding
 * onward (measured: about 1e-7 relative on tiny); a planted bug moves the outputs by orders of
 * magnitude more.
 */
public final class AuthoredRuns {
    public static final double RELATIVE_TOLERANCE = 1e-4;

    private static final Interpreter INTERPRETER = new Interpreter(RunOptions.defaults().withThreads(1));

    /** The unsplit cut's run on its sample inputs. */
    public static Reference reference(AuthoredCase c) {
        AuthorOutcome.Authored u = unsplit(c);
        return reference(c, u.bound(), u.params());
    }

    /** The unsplit cut's run on the given inputs (the unsplit program's bound tensors) and parameters. */
    public static Reference reference(AuthoredCase c, Map<String, Tensor> bound, Map<String, Long> params) {
        AuthorOutcome.Authored u = unsplit(c);
        return new Reference(u.program(), bound, params, INTERPRETER.run(u.program(), bound, params));
    }

    /** The unsplit cut as the author writes it, with its sample inputs. */
    public static AuthorOutcome.Authored unsplit(AuthoredCase c) {
        if (!(Author.author(c.spec(), c.cut(), AuthorOptions.single()) instanceof AuthorOutcome.Authored u)) {
            throw new IllegalArgumentException(c.cut() + " was refused unsplit");
        }
        return u;
    }

    /** {@code c}'s run on the same inputs as {@code ref}, compared with it. */
    public static Outcome run(AuthoredCase c, Reference ref) {
        Map<String, Tensor> bound = new LinkedHashMap<>(Author.bindSplit(c.spec(), c.cut(), c.options(), ref.bound()));
        c.rebind().forEach((tensor, from) -> bound.put(tensor, bound.get(from)));
        RunResult run = INTERPRETER.run(c.program(), bound, ref.params());
        Map<String, Tensor> expected = new LinkedHashMap<>();
        for (TensorDecl t : ref.program().tensors()) {
            Tensor value = ref.run().tensor(t.name());
            if (t.role() == TensorRole.OUTPUT) {
                expected.put(t.name(), value); // written by chip 0 under the same name
            } else if (t.role() == TensorRole.STATE) {
                expected.putAll(Author.shardsOf(c.spec(), c.cut(), c.options(), t.name(), value));
            }
        }
        return Compare.tensors(expected, run, RELATIVE_TOLERANCE);
    }

    /** The unsplit program, its bound tensors and parameters, and its completed run. */
    public record Reference(Program program, Map<String, Tensor> bound, Map<String, Long> params, RunResult run) {
        public Reference {
            if (!run.ok()) {
                throw new IllegalStateException("the unsplit run faulted: " + run.faults());
            }
        }
    }

    private AuthoredRuns() {}
}
