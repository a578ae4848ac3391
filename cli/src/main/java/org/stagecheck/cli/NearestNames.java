package org.stagecheck.cli;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import org.stagecheck.spec.validate.NameRules;

/**
 * "Did you mean" for a name the command line does not know (a tensor in {@code --bind}, a
 * parameter in {@code --param}, an option or a command): the known names nearest to it in edit
 * distance (insertions, deletions, substitutions and swaps of two neighbours each cost one), when
 * they are near enough to be a slip of the keyboard: at most one edit in a name of up to five
 * characters, two up to eight, three beyond.
 */
final class NearestNames {
    /** At most this many suggestions. */
    private static final int MAX = 3;
    /** Longer names are no slip of the keyboard (and the distance table grows with the square of the length). */
    private static final int LONGEST = 256;

    private NearestNames() {
    }

    /** The known names nearest to {@code name} within the allowed distance, sorted; empty when none is near. */
    static List<String> nearest(String name, Collection<String> known) {
        if (name.length() > LONGEST) {
            return List.of();
        }
        int limit = Math.min(3, Math.max(1, name.length() / 3));
        int best = limit + 1;
        TreeSet<String> found = new TreeSet<>();
        for (String k : known) {
            if (k.equals(name) || Math.abs(k.length() - name.length()) > limit) {
                continue;
            }
            int d = distance(name, k);
            if (d > limit) {
                continue;
            }
            if (d < best) {
                best = d;
                found.clear();
            }
            if (d == best) {
                found.add(k);
            }
        }
        return new ArrayList<>(found).subList(0, Math.min(MAX, found.size()));
    }

    /** {@code "did you mean 'a'?"} (or {@code 'a' or 'b'}), or the empty string when no known name is near. */
    static String didYouMean(String name, Collection<String> known) {
        List<String> near = nearest(name, known);
        if (near.isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder("did you mean ");
        for (int i = 0; i < near.size(); i++) {
            b.append(i == 0 ? "" : i == near.size() - 1 ? " or " : ", ").append(NameRules.quote(near.get(i)));
        }
        return b.append('?').toString();
    }

    /** {@code "; did you mean 'a'?"} to end a message with, or the empty string. */
    static String suffix(String name, Collection<String> known) {
        String hint = didYouMean(name, known);
        return hint.isEmpty() ? "" : "; " + hint;
    }

    /** The optimal-string-alignment distance: Levenshtein plus the swap of two neighbouring characters. */
    static int distance(String a, String b) {
        int n = a.length();
        int m = b.length();
        int[][] d = new int[n + 1][m + 1];
        for (int i = 0; i <= n; i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= m; j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= n; i++) {
            for (int j = 1; j <= m; j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[n][m];
    }
}
