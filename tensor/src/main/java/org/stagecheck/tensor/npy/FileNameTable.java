package org.stagecheck.tensor.npy;

import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The file names of one output directory: each name gets {@link SafeNames#encode} plus a suffix,
 * and a name whose file would collide with an earlier one on a case-insensitive file system
 * ({@code A} and {@code a}, or two shortened names) gets {@code ~2}, {@code ~3}, ... before the
 * suffix. The table is the directory's index: writers save it beside the files
 * (docs/format.md, "File names of tensors"). One instance per directory and per writer.
 */
public final class FileNameTable {
    private final Map<String, String> files = new LinkedHashMap<>();
    private final Set<String> taken = new HashSet<>();

    /** The file name of {@code name}, assigned on first use and the same on every later call. */
    public String fileOf(String name, String suffix) {
        String known = files.get(name);
        if (known != null) {
            return known;
        }
        String stem = SafeNames.encode(name);
        String candidate = stem + suffix;
        for (int n = 2; !taken.add(candidate.toLowerCase(Locale.ROOT)); n++) {
            candidate = stem + "~" + n + suffix;
        }
        files.put(name, candidate);
        return candidate;
    }

    /** Name to file name, in the order they were assigned. */
    public Map<String, String> files() {
        return Collections.unmodifiableMap(files);
    }
}
