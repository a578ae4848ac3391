package org.stagecheck.tensor.npy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;

/**
 * Names in a program (tensor names, stage ids) are data, not paths: this maps a name to a file
 * name that is safe on every common file system, and back (docs/format.md, "File names of
 * tensors").
 *
 * <p>The scheme is percent-encoding of the name's UTF-8 bytes: ASCII letters, digits, {@code _},
 * {@code -} and {@code .} are kept; every other byte (separators, control characters, NUL,
 * {@code %}, spaces, {@code :*?"<>|}, non-ASCII) becomes {@code %XX} with upper-case hex. On top
 * of that a leading dot (hidden files, {@code .}, {@code ..}) and a trailing dot are encoded, the
 * first character of a Windows device name ({@code CON}, {@code NUL}, {@code COM1}, ...) is
 * encoded, and the empty name is {@code %}. The result never contains a separator, is never
 * {@code .} or {@code ..}, and {@link #decode} gives the name back. A name whose encoding is longer
 * than {@link #MAX_FILE_NAME} characters is cut and given a hash suffix {@code ~<16 hex>}: still
 * safe and unique, but only the index the writer keeps beside the files maps it back.
 */
public final class SafeNames {
    /** The longest encoded name used as is; leaves room for a suffix such as {@code .out12.npy}. */
    public static final int MAX_FILE_NAME = 200;

    private static final Set<String> DEVICE_NAMES = Set.of("con", "prn", "aux", "nul",
            "com0", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9",
            "lpt0", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9");
    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private SafeNames() {
    }

    /** The safe file name (without extension) for {@code name}. */
    public static String encode(String name) {
        if (name.isEmpty()) {
            return "%";
        }
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(bytes.length + 8);
        for (int i = 0; i < bytes.length; i++) {
            int b = bytes[i] & 0xFF;
            boolean edgeDot = b == '.' && (i == 0 || i == bytes.length - 1);
            if (kept(b) && !edgeDot) {
                out.append((char) b);
            } else {
                out.append('%').append(HEX[b >>> 4]).append(HEX[b & 0xF]);
            }
        }
        String stem = out.toString();
        int dot = stem.indexOf('.');
        String base = (dot < 0 ? stem : stem.substring(0, dot)).toLowerCase(Locale.ROOT);
        if (DEVICE_NAMES.contains(base)) {
            int c = stem.charAt(0);
            stem = "%" + HEX[c >>> 4] + HEX[c & 0xF] + stem.substring(1);
        }
        if (stem.length() > MAX_FILE_NAME) {
            int cut = MAX_FILE_NAME - 17;
            // never cut inside a %XX escape
            while (cut > 0 && (stem.charAt(cut - 1) == '%' || (cut > 1 && stem.charAt(cut - 2) == '%'))) {
                cut--;
            }
            stem = stem.substring(0, cut) + "~" + hash16(name);
        }
        return stem;
    }

    /**
     * The name a file name made by {@link #encode} stands for.
     *
     * @throws IllegalArgumentException for a name that is not such an encoding (a stray
     *                                  {@code %}, a kept character that should have been
     *                                  encoded, a shortened name whose original only an index knows)
     */
    public static String decode(String fileName) {
        if (fileName.equals("%")) {
            return "";
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(fileName.length());
        for (int i = 0; i < fileName.length(); i++) {
            char c = fileName.charAt(i);
            if (c == '%') {
                if (i + 2 >= fileName.length()) {
                    throw new IllegalArgumentException("'" + fileName + "' ends inside a %XX escape");
                }
                int v = HexFormat.fromHexDigits(fileName, i + 1, i + 3);
                bytes.write(v);
                i += 2;
            } else if (c < 128 && kept(c)) {
                bytes.write(c);
            } else {
                throw new IllegalArgumentException("'" + fileName + "' is not an encoded name (character '" + c + "')");
            }
        }
        String name = new String(bytes.toByteArray(), StandardCharsets.UTF_8);
        if (!encode(name).equals(fileName)) {
            throw new IllegalArgumentException("'" + fileName + "' is not the encoding of any name");
        }
        return name;
    }

    /**
     * {@code dir/<file>} for a file name made here (optionally with a suffix such as {@code .npy}),
     * checked to be a direct child of {@code dir}: the last line of defence against a name that
     * would leave the directory.
     */
    public static Path child(Path dir, String fileName) {
        if (fileName.isEmpty() || fileName.equals(".") || fileName.equals("..") || fileName.indexOf('/') >= 0
                || fileName.indexOf('\\') >= 0 || fileName.indexOf('\0') >= 0 || Path.of(fileName).isAbsolute()) {
            throw new IllegalArgumentException("'" + fileName + "' is not a plain file name inside " + dir);
        }
        return dir.resolve(fileName);
    }

    private static boolean kept(int b) {
        return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '_' || b == '-' || b == '.';
    }

    private static String hash16(String name) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
