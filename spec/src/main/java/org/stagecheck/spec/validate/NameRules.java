package org.stagecheck.spec.validate;

/**
 * What a tensor name or a stage id may be (docs/format.md, "Names"). Both end up in file names
 * ({@code run} writes {@code OUT/<tensor>.npy} and {@code OUT/trace/<index>_<stage id>.out<k>.npy}),
 * so the validator refuses the names no file system can take as one plain file name: empty,
 * longer than {@link #MAX_LENGTH} characters, holding a path separator ({@code /} or {@code \}),
 * a control character (U+0000 to U+001F, U+007F to U+009F) or an unpaired surrogate, or
 * consisting only of dots ({@code .}, {@code ..}). Whatever passes is still written through
 * {@code SafeNames}, which encodes what some file systems alone refuse (Windows device names,
 * {@code :*?"<>|}, a leading or trailing dot).
 */
public final class NameRules {
    /** The longest name, in UTF-16 characters. */
    public static final int MAX_LENGTH = 200;

    private NameRules() {
    }

    /** Whether {@code c} is a control character: U+0000 to U+001F or U+007F to U+009F. */
    public static boolean isControl(int c) {
        return c >= 0 && c < 0x20 || c >= 0x7F && c <= 0x9F;
    }

    /** Why {@code name} cannot be a tensor name or stage id, or null when it can. */
    public static String problem(String name) {
        if (name.isEmpty()) {
            return "is empty";
        }
        if (name.length() > MAX_LENGTH) {
            return "is " + name.length() + " characters long, more than the " + MAX_LENGTH + " a name may have";
        }
        boolean onlyDots = true;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/' || c == '\\') {
                return "holds a path separator '" + c + "'; a name is data, never a path";
            }
            if (isControl(c)) {
                return controlAt(c, i);
            }
            if (Character.isHighSurrogate(c) && (i + 1 == name.length() || !Character.isLowSurrogate(name.charAt(i + 1)))
                    || Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(name.charAt(i - 1)))) {
                return "holds an unpaired surrogate at position " + i;
            }
            onlyDots &= c == '.';
        }
        if (onlyDots) {
            return "is only dots, which a file system reads as a directory";
        }
        return null;
    }

    /**
     * Why {@code name} cannot be a program's name, or null when it can: a program name is printed
     * in every report ({@code ran 6 stages of NAME}), so a line break or another control character
     * in it would forge or hide lines; unlike a tensor name it never becomes a file name, so the
     * other rules do not apply.
     */
    public static String programNameProblem(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (isControl(c)) {
                return controlAt(c, i);
            }
        }
        return null;
    }

    private static String controlAt(char c, int i) {
        return "holds the control character U+" + String.format("%04X", (int) c) + " at position " + i;
    }

    /** {@code name} quoted for a message, its control characters written as {@code \\uXXXX}. */
    public static String quote(String name) {
        StringBuilder b = new StringBuilder("'");
        int shown = Math.min(name.length(), 60);
        for (int i = 0; i < shown; i++) {
            char c = name.charAt(i);
            if (isControl(c) || Character.isSurrogate(c)) {
                b.append(String.format("\\u%04X", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append(name.length() > shown ? "...'" : "'").toString();
    }
}
