package org.stagecheck.golden.debug;

import java.util.List;

import org.stagecheck.tensor.compare.Comparison;

/**
 * The readable report of a {@link DiffResult}: a headline naming the first divergent stage, one
 * line per stage up to it (every stage when nothing diverges), a count of the rest, the DRAM
 * tensors that diverge, the three-way verdict, and the notes.
 */
public final class DiffText {
    private DiffText() {
    }

    public static String of(DiffResult r) {
        StringBuilder b = new StringBuilder();
        b.append(headline(r)).append('\n');
        int last = r.divergence() != null && r.divergence().stageIndex() >= 0 ? r.divergence().stageIndex() : r.stages().size() - 1;
        for (StageVerdict v : r.stages()) {
            if (v.index() > last) {
                break;
            }
            b.append("  ").append(line(v)).append('\n');
        }
        List<StageVerdict> rest = r.stages().subList(Math.min(r.stages().size(), last + 1), r.stages().size());
        if (!rest.isEmpty()) {
            b.append("  (").append(rest.size()).append(" later stage(s): ");
            boolean first = true;
            for (StageVerdict.Verdict k : StageVerdict.Verdict.values()) {
                long n = rest.stream().filter(v -> v.verdict() == k).count();
                if (n > 0) {
                    b.append(first ? "" : ", ").append(n).append(' ').append(k.words());
                    first = false;
                }
            }
            b.append(")\n");
        }
        for (DiffResult.TensorVerdict t : r.tensors()) {
            if (!t.comparison().passed()) {
                b.append("  tensor ").append(t.tensor()).append(": ").append(t.comparison().summary()).append('\n');
            }
        }
        Divergence d = r.divergence();
        if (d != null && d.suspects().size() > 1) {
            b.append("suspects (").append(d.suspects().size()).append("): ").append(String.join(", ", abbreviate(d.suspects()))).append('\n');
        }
        if (r.threeWay() != null) {
            b.append("three-way: ").append(r.threeWay().summary()).append('\n');
        }
        for (String n : r.notes()) {
            b.append("note: ").append(n).append('\n');
        }
        return b.toString();
    }

    /** The first line: what was compared and where the divergence starts. */
    public static String headline(DiffResult r) {
        String how = "diff of " + r.program() + " (" + r.mode().words() + ", policy " + r.judge().spelling() + "): ";
        Divergence d = r.divergence();
        if (d == null) {
            return how + "everything recorded agrees";
        }
        if (d.stageIndex() < 0) {
            return how + "tensor '" + d.tensor() + "' diverges; no recorded stage does";
        }
        String verdict = r.threeWay() == null ? "" : ": " + r.threeWay().classification().words();
        return how + "first divergent stage #" + d.stageIndex() + " '" + d.stageId() + "' (" + d.kind() + ")" + verdict;
    }

    static String line(StageVerdict v) {
        StringBuilder b = new StringBuilder().append('#').append(v.index()).append(' ').append(v.id()).append(" (").append(v.kind())
                .append("): ").append(v.verdict().words());
        if (v.verdict() == StageVerdict.Verdict.DIVERGES) {
            for (Comparison c : v.outputs()) {
                if (!c.passed()) {
                    b.append(" - ").append(c.summary());
                    break;
                }
            }
        }
        if (v.note() != null && v.verdict() != StageVerdict.Verdict.AGREES) {
            b.append(" [").append(v.note()).append(']');
        }
        return b.toString();
    }

    private static List<String> abbreviate(List<String> ids) {
        if (ids.size() <= 12) {
            return ids;
        }
        List<String> out = new java.util.ArrayList<>(ids.subList(0, 6));
        out.add("... " + (ids.size() - 12) + " more ...");
        out.addAll(ids.subList(ids.size() - 6, ids.size()));
        return out;
    }
}
