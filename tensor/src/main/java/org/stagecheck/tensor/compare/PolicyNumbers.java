package org.stagecheck.tensor.compare;

import java.util.function.DoublePredicate;
import java.util.regex.Pattern;

/**
 * The numbers of a tolerance policy's spelling ({@link Policy#parse}): plain decimal numbers only,
 * so that NaN, infinities, Java's hexadecimal and suffixed forms ({@code 0x1p3}, {@code 1d}) are
 * refused with a message that names the policy and what the number must be, never the text of a
 * {@link NumberFormatException}. Golden's judges read their factor with it too.
 */
public final class PolicyNumbers {
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)(e[+-]?\\d+)?");
    private static final Pattern WHOLE = Pattern.compile("\\+?\\d+");

    private PolicyNumbers() {
    }

    /**
     * {@code word} as a finite decimal number that {@code allowed} accepts.
     *
     * @param text        the whole policy as given, for the message
     * @param label       the number's place in the spelling (RTOL, MIN, ...)
     * @param requirement what the number must be, in words
     */
    public static double real(String text, String word, String label, String requirement, DoublePredicate allowed) {
        if (DECIMAL.matcher(word).matches()) {
            double v = Double.parseDouble(word);
            if (Double.isFinite(v) && allowed.test(v)) {
                return v;
            }
        }
        throw refused(text, word, label, requirement);
    }

    /** {@code word} as a whole number at least 0 that fits in a long. */
    public static long count(String text, String word, String label) {
        String requirement = "a whole number at least 0 and at most " + Long.MAX_VALUE;
        if (!WHOLE.matcher(word).matches()) {
            throw refused(text, word, label, requirement);
        }
        try {
            return Long.parseLong(word);
        } catch (NumberFormatException tooLarge) {
            throw refused(text, word, label, requirement);
        }
    }

    private static IllegalArgumentException refused(String text, String word, String label, String requirement) {
        return new IllegalArgumentException("tolerance policy '" + text.strip() + "': " + label + " must be " + requirement
                + ", not '" + word + "'");
    }
}
