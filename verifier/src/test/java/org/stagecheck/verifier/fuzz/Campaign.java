package org.stagecheck.verifier.fuzz;

import org.stagecheck.verifier.Parent;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.corpus.TpCase;
import org.stagecheck.verifier.corpus.TpSpec;
import org.stagecheck.verifier.shard.SplitEdits;
import org.stagecheck.verifier.soundness.Outcome;
import org.stagecheck.verifier.soundness.TpRuns;

/**
 * The evaluator-judged campaign (docs/verifier.md): program {@code i} is a random spec of the
 * reference splitter (column- and row-parallel MLP, optional first bias, multicast of x, split-K
 * with a spill) with one random {@link Mutation}; the checker, given the unsplit program as the
 * parent, decides; its verdict is compared with the evaluator's, split against unsplit on
 * {@value #INPUT_SEEDS} input seeds. Deterministic in the seed.
 */
public final class Campaign {
    static final int INPUT_SEEDS = 3;

    /** One program's verdicts. */
    public record Result(long seed, TpSpec spec, Mutation mutation, boolean accepted, boolean agrees, List<String> codes, String evidence) {
        public boolean unsound() {
            return accepted && !agrees;
        }

        public boolean incomplete() {
            return !accepted && agrees;
        }
    }

    /** Program {@code seed}: its mutation and the edited split (with its unsplit parent). */
    public record Program(Mutation mutation, TpSpec spec, TpCase edited) {}

    /** Program {@code seed}, unchecked. */
    public static Program program(long seed) {
        SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 1);
        TpSpec spec = TpSpec.random(r.nextLong());
        SplitEdits e = new SplitEdits(spec);
        Mutator m = new Mutator(e, r);
        Mutation[] all = Mutation.values();
        Mutation pick;
        do {
            pick = all[r.nextInt(all.length)];
        } while (!m.fits(pick));
        m.apply(pick);
        return new Program(pick, spec, e.asCase());
    }

    /** The checker's report on program {@code seed}, given the unsplit parent. */
    public static VerifyReport report(long seed) {
        TpCase c = program(seed).edited();
        return new Verifier().verify(c.program(), c.certificate(), Parent.unsplit(c.unsplit()));
    }

    /** Program {@code seed}, checked and judged. */
    public static Result run(long seed) {
        Program p = program(seed);
        TpSpec spec = p.spec();
        Mutation pick = p.mutation();
        TpCase c = p.edited();
        VerifyReport report = new Verifier().verify(c.program(), c.certificate(), Parent.unsplit(c.unsplit()));
        Outcome worst = null;
        boolean agrees = true;
        for (long in = 1; in <= INPUT_SEEDS; in++) {
            Outcome o;
            try {
                o = TpRuns.run(c, in);
            } catch (RuntimeException ex) {
                o = new Outcome(Outcome.Kind.FAULTS, Double.NaN, 1, ex.getClass().getSimpleName() + ": " + ex.getMessage());
            }
            if (o.isRealBug()) {
                agrees = false;
                worst = o;
                break;
            }
            worst = o;
        }
        if (agrees && !report.holds()) {
            // a rejection the first inputs do not show wrong: more inputs before calling it a completeness finding
            for (long in = INPUT_SEEDS + 1; in <= INPUT_SEEDS + 5 && agrees; in++) {
                Outcome o = TpRuns.run(c, in);
                agrees = !o.isRealBug();
                worst = o;
            }
        }
        return new Result(seed, spec, pick, report.holds(), agrees, report.codes(), String.valueOf(worst));
    }

    /** Programs {@code from} to {@code from + count - 1}, tallied per mutation. */
    public static Tally run(long from, int count) {
        Tally t = new Tally();
        for (long s = from; s < from + count; s++) {
            t.add(run(s));
        }
        return t;
    }

    /** Counts per mutation: {accepted and agrees, accepted and wrong, rejected and agrees, rejected and wrong}. */
    public static final class Tally {
        final Map<Mutation, int[]> counts = new EnumMap<>(Mutation.class);
        final Map<Mutation, java.util.Set<String>> codes = new EnumMap<>(Mutation.class);
        final List<Result> unsound = new ArrayList<>();
        final List<Result> incomplete = new ArrayList<>();
        int total;

        void add(Result x) {
            int[] c = counts.computeIfAbsent(x.mutation(), k -> new int[4]);
            c[(x.accepted() ? 0 : 2) + (x.agrees() ? 0 : 1)]++;
            codes.computeIfAbsent(x.mutation(), k -> new java.util.TreeSet<>()).addAll(x.codes());
            total++;
            if (x.unsound()) {
                unsound.add(x);
            }
            if (x.incomplete()) {
                incomplete.add(x);
            }
        }

        public List<Result> unsound() {
            return unsound;
        }

        public List<Result> incomplete() {
            return incomplete;
        }

        /** Every code reported on the programs of mutation {@code m}. */
        public java.util.Set<String> codes(Mutation m) {
            return codes.getOrDefault(m, java.util.Set.of());
        }

        public int total() {
            return total;
        }

        /** The table of docs/verifier.md. */
        public String table() {
            StringBuilder sb = new StringBuilder("| mutation | programs | accepted, agree | accepted, WRONG | rejected, agree | rejected, wrong |\n")
                    .append("| --- | ---: | ---: | ---: | ---: | ---: |\n");
            int[] sum = new int[4];
            counts.forEach((m, c) -> {
                sb.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d |%n", m, c[0] + c[1] + c[2] + c[3], c[0], c[1], c[2], c[3]));
                for (int i = 0; i < 4; i++) {
                    sum[i] += c[i];
                }
            });
            sb.append(String.format(Locale.ROOT, "| **all** | **%d** | %d | **%d** | %d | %d |%n", total, sum[0], sum[1], sum[2], sum[3]));
            int wrong = sum[1] + sum[3];
            sb.append(String.format(Locale.ROOT, "%nwrong programs accepted: %d of %d (%.4f); right programs rejected: %d of %d (%.4f)%n",
                    sum[1], wrong, sum[1] / (double) Math.max(1, wrong), sum[2], sum[0] + sum[2], sum[2] / (double) Math.max(1, sum[0] + sum[2])));
            return sb.toString();
        }
    }

    private Campaign() {}
}
