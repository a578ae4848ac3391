package org.stagecheck.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.stagecheck.golden.Shard;
import org.stagecheck.tensor.npy.IoMessages;

/**
 * Which shard of a suite {@code golden check} runs (docs/golden.md, "Sharding"): {@code --shard K/N}
 * (K counted from 1), else Bazel's test-sharding protocol: {@code TEST_TOTAL_SHARDS} and
 * {@code TEST_SHARD_INDEX} (counted from 0), with {@code TEST_SHARD_STATUS_FILE} touched to say
 * that the protocol is understood. Neither: the whole suite (null shard).
 *
 * @param shard      the shard to run, or null for the whole suite
 * @param statusFile the file Bazel asks to be touched, or null
 */
record ShardOption(Shard shard, Path statusFile) {
    static final String TOTAL = "TEST_TOTAL_SHARDS";
    static final String INDEX = "TEST_SHARD_INDEX";
    static final String STATUS_FILE = "TEST_SHARD_STATUS_FILE";
    private static final Pattern K_OF_N = Pattern.compile("([0-9]{1,9})/([0-9]{1,9})");

    /** The shard {@code option} (the {@code --shard} value, or null) or {@code env} names; bad values are bad input. */
    static ShardOption resolve(String option, Map<String, String> env) throws BadInputException {
        if (option != null) {
            Matcher m = K_OF_N.matcher(option);
            if (!m.matches()) {
                throw new BadInputException("--shard " + option + ": expected K/N, shard K of N counted from 1 (1/4 to 4/4)");
            }
            int k = Integer.parseInt(m.group(1));
            int n = Integer.parseInt(m.group(2));
            if (n < 1) {
                throw new BadInputException("--shard " + option + ": N, the number of shards, is at least 1");
            }
            if (k < 1 || k > n) {
                throw new BadInputException("--shard " + option + ": K counts from 1 to N (1/" + n + " to " + n + "/" + n + ")");
            }
            return new ShardOption(new Shard(k, n), null);
        }
        String total = env.get(TOTAL);
        String index = env.get(INDEX);
        if (total == null && index == null) {
            return new ShardOption(null, null);
        }
        if (total == null || index == null) {
            throw new BadInputException((total == null ? INDEX : TOTAL) + " is set but " + (total == null ? TOTAL : INDEX)
                    + " is not; Bazel's test sharding sets both");
        }
        int n = number(TOTAL, total);
        int i = number(INDEX, index);
        if (n < 1) {
            throw new BadInputException(TOTAL + "=" + total + ": the number of shards is at least 1");
        }
        if (i >= n) {
            throw new BadInputException(INDEX + "=" + index + ": counts from 0 to " + TOTAL + " - 1 = " + (n - 1));
        }
        String status = env.get(STATUS_FILE);
        return new ShardOption(new Shard(i + 1, n), status == null || status.isEmpty() ? null : Path.of(status));
    }

    private static int number(String variable, String value) throws BadInputException {
        if (!value.matches("[0-9]{1,9}")) {
            throw new BadInputException(variable + "=" + value + ": expected a non-negative integer");
        }
        return Integer.parseInt(value);
    }

    /** Touches {@link #statusFile} when Bazel named one: creates it, or updates the modification time of the regular file it is. */
    void touchStatusFile() throws BadInputException {
        if (statusFile == null) {
            return;
        }
        // opening a named pipe with no reader blocks for ever, and a device is no status: Bazel names a file
        if (Files.exists(statusFile) && !Files.isRegularFile(statusFile)) {
            throw new BadInputException(STATUS_FILE + "=" + statusFile + ": not a regular file (a directory, pipe or device); Bazel names a file to create");
        }
        try {
            Files.write(statusFile, new byte[0], StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            Files.setLastModifiedTime(statusFile, FileTime.fromMillis(System.currentTimeMillis()));
        } catch (IOException e) {
            throw new BadInputException(STATUS_FILE + "=" + statusFile + ": cannot touch it: " + IoMessages.describe(e));
        }
    }
}
