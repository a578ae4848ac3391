package org.stagecheck.golden.report;

import java.util.List;
import java.util.Locale;

import org.stagecheck.golden.CaseResult;
import org.stagecheck.golden.Shard;
import org.stagecheck.tensor.compare.Comparison;

/**
 * The report for people: one summary line per case and a total; under a case that did not pass,
 * every failing output's figures (docs/golden.md, "Reports").
 */
public final class TextReport {
    private TextReport() {
    }

    public static String of(List<CaseResult> results) {
        return of(results, null);
    }

    /** As {@link #of(List)}, the total saying which shard of the suite ran and how many cases it took (null: the whole suite). */
    public static String of(List<CaseResult> results, Shard.Selection shard) {
        StringBuilder b = new StringBuilder();
        for (CaseResult r : results) {
            b.append(caseText(r, false));
        }
        b.append(total(results));
        if (shard != null) {
            b.append("; ").append(shard.describe());
        }
        b.append('\n');
        return b.toString();
    }

    /** One case: its summary line and, unless it passed (or {@code all}), each output's details. */
    public static String caseText(CaseResult r, boolean all) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-9s %s  (%s)", r.status().name(), r.name(), r.backend()));
        if (r.status() == CaseResult.Status.PASS) {
            b.append("  ").append(r.outputs().size()).append(" output(s)").append(policies(r));
        } else if (r.message() != null) {
            // one line: a path or name from a damaged manifest may hold a line feed
            b.append("  ").append(r.message().replace("\n", "\\u000A"));
        }
        b.append('\n');
        for (CaseResult.OutputResult o : r.outputs()) {
            if (all || !o.comparison().passed()) {
                b.append(outputText(o.tensor(), o.comparison()));
            }
        }
        if (r.status() != CaseResult.Status.PASS) {
            for (String w : r.warnings()) {
                b.append("    note: ").append(w).append('\n');
            }
        }
        return b.toString();
    }

    /**
     * The policies the outputs were judged by, as applied (an override given at check time, else
     * each output's recorded one): {@code , policy derived} or {@code , policies derived, ulp 1}.
     */
    static String policies(CaseResult r) {
        List<String> p = r.outputs().stream().map(o -> o.comparison().policy().spelling()).distinct().toList();
        return p.isEmpty() ? "" : (p.size() == 1 ? ", policy " : ", policies ") + String.join(", ", p);
    }

    /** The figures of one output comparison, indented under its case. */
    public static String outputText(String tensor, Comparison c) {
        StringBuilder b = new StringBuilder();
        b.append("  ").append(tensor).append(": ").append(c.summary()).append('\n');
        if (c.maxRel() != null) {
            Comparison.Worst w = c.maxRel();
            b.append(String.format(Locale.ROOT, "      max rel error %s at %s (expected %s, actual %s)%n", num(w.relError()), w.index(),
                    num(w.expected()), num(w.actual())));
        }
        if (!c.ulpHistogram().isEmpty()) {
            b.append("      ULP histogram: ");
            for (int i = 0; i < c.ulpHistogram().size(); i++) {
                Comparison.UlpBucket u = c.ulpHistogram().get(i);
                b.append(i == 0 ? "" : " | ").append(u.label()).append(": ").append(u.count());
            }
            if (c.nonFiniteMismatches() > 0) {
                b.append(" | NaN/Inf disagree: ").append(c.nonFiniteMismatches());
            }
            b.append('\n');
        }
        if (c.elements() > 0) {
            b.append("      pcc ").append(Double.isNaN(c.pcc()) ? "undefined (constant data)" : String.format(Locale.ROOT, "%.9f", c.pcc())).append('\n');
            Comparison.Minimal m = c.minimal();
            b.append("      would pass with: ");
            if (m.ulps() == Long.MAX_VALUE) {
                b.append("no tolerance (NaN/Inf disagree)");
            } else {
                // each figure rounded toward passing (PrintedFigure): a policy copied from here passes;
                // a figure no finite tolerance reaches (an error where the reference is 0, or where the
                // derived tolerance is 0) is left out, with the reason for derived
                b.append("ulp ").append(m.ulps());
                if (Double.isFinite(m.atol())) {
                    b.append(" | allclose 0 ").append(PrintedFigure.up(m.atol()));
                }
                if (Double.isFinite(m.rtol())) {
                    b.append(" | allclose ").append(PrintedFigure.up(m.rtol())).append(" 0");
                }
                if (Double.isFinite(m.atolAtRtol())) {
                    b.append(" | allclose ").append(PrintedFigure.exact(m.rtolUsed())).append(' ').append(PrintedFigure.up(m.atolAtRtol()));
                }
                if (!Double.isNaN(m.pcc())) {
                    b.append(" | pcc ").append(PrintedFigure.down9(m.pcc()));
                }
                if (Double.isInfinite(m.derivedScale())) {
                    b.append(" | no derived scale (an element whose derived tolerance is 0 differs)");
                } else if (!Double.isNaN(m.derivedScale())) {
                    b.append(" | derived ").append(PrintedFigure.up(m.derivedScale()));
                }
            }
            b.append('\n');
        }
        return b.toString();
    }

    /**
     * {@code total: N cases, P passed, F failed, S stale, B bad input}, and {@code , D program
     * differs} when any case was checked against another program.
     */
    public static String total(List<CaseResult> results) {
        long pass = count(results, CaseResult.Status.PASS);
        long differs = count(results, CaseResult.Status.PROGRAM_DIFFERS);
        return String.format(Locale.ROOT, "total: %d case(s), %d passed, %d failed, %d stale, %d bad input", results.size(), pass,
                count(results, CaseResult.Status.FAIL), count(results, CaseResult.Status.STALE), count(results, CaseResult.Status.BAD_INPUT))
                + (differs == 0 ? "" : ", " + differs + " program differs");
    }

    private static long count(List<CaseResult> results, CaseResult.Status s) {
        return results.stream().filter(r -> r.status() == s).count();
    }

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e9) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.6g", v);
    }
}
