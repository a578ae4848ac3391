package org.stagecheck.spec.json;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The tensors an inputs manifest binds from a checkpoint's safetensors files instead of its own
 * files (docs/format.md, "Checkpoint references"): the checkpoint directory, what each of its
 * files looked like when the manifest was written (so that a file changed since is refused, not
 * read), and for each tensor the file, the key and how the stored tensor is viewed.
 *
 * @param dir     the checkpoint directory (absolute, or relative to the manifest's directory)
 * @param files   file name (plain, inside {@code dir}) to its facts at authoring time
 * @param tensors program tensor name to its source
 */
public record CheckpointRefs(String dir, Map<String, FileFacts> files, Map<String, TensorRef> tensors) {
    public CheckpointRefs {
        Objects.requireNonNull(dir, "dir");
        files = Collections.unmodifiableMap(new LinkedHashMap<>(files));
        tensors = Collections.unmodifiableMap(new LinkedHashMap<>(tensors));
    }

    /**
     * A safetensors file's size, the SHA-256 (hex) of its header bytes (the 8-byte length and the
     * JSON), and the SHA-256 of its data region, or null when not recorded: the size and header
     * do not change when a checkpoint is written over with other values of the same shapes.
     */
    /**
     * What a file looked like when the manifest was written: its size, the SHA-256 of its header,
     * optionally the SHA-256 of its data region and its modification time (milliseconds since the
     * epoch). A reader compares size and header always, and the data digest when the file's
     * modification time is not the recorded one (or none is recorded): rewriting a file changes its
     * time, and an unchanged file is not read twice over.
     */
    public record FileFacts(long bytes, String headerSha256, String dataSha256, Long modifiedMillis) {
        public FileFacts {
            Objects.requireNonNull(headerSha256, "headerSha256");
        }

        /** Facts with the data's digest, without the time (the digest is always compared). */
        public FileFacts(long bytes, String headerSha256, String dataSha256) {
            this(bytes, headerSha256, dataSha256, null);
        }

        /** Facts without the data's digest: a file changed in its values alone is not noticed. */
        public FileFacts(long bytes, String headerSha256) {
            this(bytes, headerSha256, null, null);
        }
    }

    /** How a stored tensor becomes the program's tensor. */
    public enum View {
        /** As stored. */
        AS_STORED("as-stored"),
        /** A rank-2 {@code [r, c]} read as {@code [c, r]}: torch's {@code [out, in]} linear weight as stagecheck's {@code [in, out]}. */
        TRANSPOSED("transposed"),
        /** A rank-1 {@code [n]} read as {@code [1, n]}: a norm weight or a bias as a row. */
        ROW("row"),
        /**
         * The experts' rank-2 tensors (the key with {@code {e}} for the expert index), each
         * transposed, stacked along the rows: expert e's {@code [c, r]} at rows {@code e*c}.
         */
        TRANSPOSED_STACKED_ROWS("transposed-stacked-rows"),
        /** As {@link #TRANSPOSED_STACKED_ROWS}, stacked along the columns: expert e's {@code [c, r]} at columns {@code e*r}. */
        TRANSPOSED_STACKED_COLUMNS("transposed-stacked-columns");

        private final String jsonName;

        View(String jsonName) {
            this.jsonName = jsonName;
        }

        public String jsonName() {
            return jsonName;
        }

        /** Whether this view stacks the tensors of several experts. */
        public boolean stacked() {
            return this == TRANSPOSED_STACKED_ROWS || this == TRANSPOSED_STACKED_COLUMNS;
        }

        /** The view spelled {@code name}, or null. */
        public static View ofJsonName(String name) {
            for (View v : values()) {
                if (v.jsonName.equals(name)) {
                    return v;
                }
            }
            return null;
        }
    }

    /** Elements {@code [start, end)} along {@code axis} of the viewed tensor: one chip's shard. */
    public record Slice(int axis, long start, long end) {
        public Slice {
            if (axis < 0 || start < 0 || end <= start) {
                throw new IllegalArgumentException("a slice has axis >= 0 and 0 <= start < end, not axis " + axis + " [" + start + ", " + end + ")");
            }
        }
    }

    /**
     * One tensor's source.
     *
     * @param file    the safetensors file (a key of {@link #files}); for a stacked view the
     *                experts' files are found through the checkpoint's index, and this is
     *                {@link #BY_INDEX}
     * @param key     the tensor's name in that file (a stacked view: with {@code {e}} for the expert)
     * @param view    how it is viewed
     * @param slice   the part of the viewed tensor bound, or null for all of it
     * @param experts how many experts a stacked view stacks (0 for the other views)
     */
    public record TensorRef(String file, String key, View view, Slice slice, int experts) {
        /** The file of a stacked view: each expert's tensor is found through the checkpoint's index. */
        public static final String BY_INDEX = "*";

        public TensorRef {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(view, "view");
            if (view.stacked() != (experts > 0) || (view.stacked() && !key.contains("{e}"))) {
                throw new IllegalArgumentException("a stacked view names its experts' count and a key with {e}; another view neither");
            }
        }

        /** One tensor, not stacked. */
        public TensorRef(String file, String key, View view, Slice slice) {
            this(file, key, view, slice, 0);
        }

        /** Expert {@code e}'s key of a stacked view. */
        public String keyOf(int e) {
            return key.replace("{e}", Integer.toString(e));
        }
    }
}
