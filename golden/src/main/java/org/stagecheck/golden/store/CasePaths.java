package org.stagecheck.golden.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;

import org.stagecheck.golden.GoldenException;

/**
 * File names inside a case directory. Names in a program (tensors, stages) are data, never
 * paths: a file name is made from a sequence number and a sanitised copy of the name, and every
 * path read from a manifest is checked to stay inside the case directory, symbolic links included.
 */
public final class CasePaths {
    private static final int MAX_NAME_CHARS = 48;

    private CasePaths() {
    }

    /**
     * {@code dir/NNN-name.npy} for the {@code index}-th entry of a kind: letters, digits, '.', '_'
     * and '-' are kept, anything else becomes '_', and the name is cut to 48 characters; the number
     * keeps names unique.
     */
    public static String fileName(String dir, int index, String name) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < name.length() && b.length() < MAX_NAME_CHARS; i++) {
            char c = name.charAt(i);
            b.append((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
                    || (c == '.' && i > 0) ? c : '_');
        }
        return dir + "/" + String.format(Locale.ROOT, "%03d", index) + "-" + b + ".npy";
    }

    /**
     * {@code relative} resolved inside {@code caseDir}, refused when it is absolute, climbs out with
     * '..', or (once it exists) resolves through a link to somewhere outside.
     *
     * @param manifest the manifest file, for the message
     * @param field    the manifest field that named the path
     */
    public static Path inside(Path caseDir, String relative, Path manifest, String field) throws GoldenException {
        Path base = caseDir.toAbsolutePath().normalize();
        Path rel;
        try {
            rel = Path.of(relative);
        } catch (java.nio.file.InvalidPathException e) {
            throw new GoldenException(manifest, field, "\"" + relative + "\" is not a valid path");
        }
        if (relative.isEmpty() || rel.isAbsolute() || relative.startsWith("/") || relative.startsWith("\\")) {
            throw new GoldenException(manifest, field, "path \"" + relative + "\" must be relative to the case directory");
        }
        Path p = base.resolve(rel).normalize();
        if (!p.startsWith(base) || p.equals(base)) {
            throw new GoldenException(manifest, field, "path \"" + relative + "\" leaves the case directory");
        }
        if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Path real = p.toRealPath();
                if (!real.startsWith(base.toRealPath())) {
                    throw new GoldenException(manifest, field, "path \"" + relative + "\" leaves the case directory through a link");
                }
            } catch (IOException e) {
                throw new GoldenException(manifest, field, "path \"" + relative + "\" cannot be resolved: " + e.getMessage());
            }
        }
        return p;
    }
}
