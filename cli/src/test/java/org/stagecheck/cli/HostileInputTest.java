package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The hostile-input sweep: every command fed truncated, garbled, deeply nested, wrongly typed and
 * oversized JSON, .npy files with bad headers and data, links and directories where files belong,
 * unwritable outputs and outputs that name an input, unknown flags. Each row gives the exit code
 * (0 holds, 1 a check failed, 2 bad input); on every row, text and {@code --json} alike, the
 * command prints no stack trace, with {@code --json} exactly one JSON document carrying the
 * outcome, changes none of its inputs, and leaves no half-written output behind.
 *
 * <p>In a row, {@code $} is the directory of {@link HostileInputFixtures}, {@code OUT} a fresh
 * output path inside a scratch directory, and {@code _} inside one argument a space.
 */
@Tag("slow")
class HostileInputTest {
    @TempDir
    static Path fixtures;

    @TempDir
    static Path scratch;

    @BeforeAll
    static void writeFixtures() throws IOException {
        HostileInputFixtures.write(fixtures);
    }

    static Stream<Arguments> rows() {
        List<Arguments> rows = new ArrayList<>();
        for (String bad : List.of("truncated", "empty", "whitespace", "garbage", "deep-array", "deep-object", "nan-literal",
                "infinity-literal", "duplicate-key", "wrong-type", "fraction", "bigint", "two-documents", "null", "array",
                "deep-expression", "long-string", "non-utf8")) {
            rows.add(row(2, "validate $/" + bad + ".json"));
            rows.add(row(2, "run $/" + bad + ".json --random 1 --out OUT"));
        }
        rows.add(row(2, "verify $/truncated.json"));
        rows.add(row(2, "cuda emit $/deep-array.json --out OUT"));
        rows.add(row(2, "golden record $/nan-literal.json --random 1 --out OUT"));
        rows.add(row(2, "reduce $/garbage.json --inputs $/inputs --test true --out OUT"));
        rows.add(row(2, "diff $/trace $/trace --program $/duplicate-key.json"));
        // well-formed JSON, ill-formed programs: a validation finding, never an overflow
        for (String dim : List.of("validate $/negative-shape.json", "run $/negative-shape.json --random 1 --out OUT", "cuda emit $/negative-shape.json --out OUT")) {
            rows.add(row(2, dim)); // a negative dimension is no shape at all: refused as the file is read
        }
        for (String ill : List.of("overflowing-shape", "overflowing-offset", "huge-buffer")) {
            rows.add(row(1, "validate $/" + ill + ".json"));
            rows.add(row(1, "run $/" + ill + ".json --random 1 --out OUT"));
            rows.add(row(1, "cuda emit $/" + ill + ".json --out OUT"));
        }
        for (String big : List.of("run $/too-big-for-the-heap.json --random 1 --out OUT", "golden record $/too-big-for-the-heap.json --random 1 --out OUT",
                "cuda run $/too-big-for-the-heap.json --random 1 --emulate --out OUT", "diff $/trace $/trace --program $/too-big-for-the-heap.json")) {
            rows.add(row(2, big));
        }
        // .npy files: each refused with its reason, for run (--bind), golden record and reduce
        for (String npy : List.of("truncated", "header-only", "empty", "bad-magic", "trailing", "v9", "f64", "wrong-shape", "fortran",
                "big-endian", "object", "huge-shape", "negative-shape", "text-shape", "extra-key", "huge-header", "dir", "loop")) {
            rows.add(row(2, "run $/p.json --random 1 --bind x=$/" + npy + ".npy --out OUT"));
        }
        rows.add(row(2, "golden record $/p.json --random 1 --bind x=$/fortran.npy --out OUT"));
        rows.add(row(2, "run $/p.json --inputs $/inputs-link-out --out OUT"));
        rows.add(row(2, "run $/p.json --inputs $/inputs-nan-manifest --out OUT"));
        rows.add(row(2, "run $/p.json --inputs $/inputs-dotdot-manifest --out OUT"));
        rows.add(row(2, "run $/p.json --inputs $/x.npy --out OUT"));
        rows.add(row(2, "run $/p.json --random 1 --state-from $/x.npy --out OUT"));
        rows.add(row(2, "golden record $/p.json --inputs $/inputs-link-out --out OUT"));
        rows.add(row(2, "cuda run $/p.json --inputs $/inputs-link-out --emulate --out OUT"));
        // outputs: a file where a directory belongs, a device, a directory where a file belongs, an input
        rows.add(row(2, "run $/p.json --random 1 --out $/p.json"));
        rows.add(row(2, "run $/p.json --random 1 --out /dev/null"));
        rows.add(row(2, "author --model tiny --cut decode --ctx 4 --out $/p.json"));
        rows.add(row(2, "cuda emit $/p.json --out $/p.json"));
        rows.add(row(2, "golden record $/p.json --random 1 --out $/p.json"));
        rows.add(row(2, "golden record $/p.json --random 1 --out $/case"));
        rows.add(row(2, "reduce $/p.json --inputs $/inputs --test true --out $/case"));
        rows.add(row(2, "run $/p.json --random 1 --trace --bind x=$/trace/trace/00002_silu.out0.npy --out $/trace"));
        rows.add(row(2, "verify $/tp.json --cert $/cert.json --sarif $/tp.json"));
        rows.add(row(2, "verify $/tp.json --cert $/cert.json --sarif $/cert.json"));
        rows.add(row(2, "verify $/tp.json --sarif $/empty-dir"));
        rows.add(row(2, "verify $/tp.json --sarif /dev/full"));
        rows.add(row(2, "diff $/trace $/trace --program $/p.json --html $/p.json"));
        rows.add(row(2, "diff $/trace $/trace --program $/p.json --html $/trace/y.npy"));
        rows.add(row(2, "golden check $/case --junit $/case/manifest.json"));
        rows.add(row(2, "golden check $/case --html $/case/program.json"));
        rows.add(row(2, "golden check $/case --actual $/trace --junit $/trace/tensors.json"));
        rows.add(row(2, "golden check $/case --junit OUT --html OUT"));
        rows.add(row(2, "golden check $/case --junit /no/such/dir/r.xml"));
        // golden cases and traces
        rows.add(row(2, "golden check $/case-broken"));
        rows.add(row(2, "golden check $/empty-dir"));
        rows.add(row(2, "golden check $/p.json"));
        rows.add(row(2, "golden check $/case --actual $/x.npy"));
        rows.add(row(2, "golden check $/case --threads 0"));
        rows.add(row(2, "golden check $/case --backend no-such-backend"));
        rows.add(row(2, "diff $/trace $/empty-dir/missing --program $/p.json"));
        rows.add(row(2, "diff $/trace --program $/p.json"));
        rows.add(row(2, "diff $/trace $/trace --program $/p.json --policy ulp_x"));
        rows.add(row(2, "diff --replay --program $/p.json --inputs $/inputs --backend no-such-backend"));
        // options: unknown, malformed, out of range
        for (String command : List.of("validate $/p.json", "run $/p.json --random 1 --out OUT", "verify $/p.json",
                "author --model tiny --cut decode --ctx 4 --out OUT", "reduce $/p.json --inputs $/inputs --test true --out OUT",
                "golden record $/p.json --random 1 --out OUT", "golden check $/case", "diff $/trace $/trace --program $/p.json",
                "cuda emit $/p.json --out OUT", "cuda run $/p.json --random 1 --emulate --out OUT", "bench interp")) {
            rows.add(row(2, command + " --no-such-flag"));
        }
        rows.add(row(2, "run $/p.json --random not-a-number --out OUT"));
        rows.add(row(2, "run $/p.json --random 1 --param p=99999999999999999999 --out OUT"));
        rows.add(row(2, "run $/p.json --random 1 --param nope=1 --out OUT"));
        rows.add(row(2, "run $/p.json --random 1 --threads 0 --out OUT"));
        rows.add(row(2, "run $/p.json --random 1 --threads -3 --out OUT"));
        rows.add(row(2, "author --model $/truncated.json --cut decode --ctx 4 --out OUT"));
        rows.add(row(2, "author --model tiny --cut decode --ctx -1 --out OUT"));
        rows.add(row(2, "author --model tiny --cut decode --ctx 2147483647 --out OUT"));
        rows.add(row(2, "author --model tiny --cut decode --ctx 4 --grid 0x0 --out OUT"));
        rows.add(row(2, "author --model tiny --cut decode --ctx 4 --tp 1000000 --out OUT"));
        rows.add(row(2, "reduce $/p.json --inputs $/inputs --test true --match ( --out OUT"));
        rows.add(row(2, "reduce $/p.json --inputs $/inputs --test true --max-tries -1 --out OUT"));
        rows.add(row(2, "golden record $/p.json --random 1 --tolerance ulp_-1 --out OUT"));
        rows.add(row(2, "golden record $/p.json --random 1 --tolerance allclose_NaN_NaN --out OUT"));
        rows.add(row(2, "golden record $/p.json --random 1 --tolerance pcc_2 --out OUT"));
        rows.add(row(2, "golden record $/p.json --random 1 --output-tolerance nope=exact --out OUT"));
        rows.add(row(2, "cuda run $/p.json --random 1 --emulate --math weird --out OUT"));
        rows.add(row(2, "bench interp --size -1"));
        rows.add(row(2, "bench decode --ctx 0"));
        rows.add(row(2, "bench no-such-bench"));
        rows.add(row(2, "no-such-command"));
        // the same files, well-formed: the table's inputs are not all refused
        rows.add(row(0, "validate $/p.json"));
        rows.add(row(0, "run $/p.json --inputs $/inputs --out OUT"));
        rows.add(row(0, "run $/p.json --random 1 --bind x=$/x.npy --out OUT"));
        rows.add(row(0, "verify $/tp.json --cert $/cert.json --sarif OUT"));
        rows.add(row(0, "golden check $/case --junit OUT"));
        rows.add(row(0, "diff $/trace $/trace --program $/p.json --html OUT"));
        rows.add(row(0, "cuda emit $/p.json --out OUT"));
        return rows.stream();
    }

    private static Arguments row(int exit, String command) {
        return Arguments.of(exit, command);
    }

    @ParameterizedTest(name = "[{index}] exit {0}: {1}")
    @MethodSource("rows")
    void aClearAnswerAndTheRightExitCodeNeverAStackTrace(int exit, String command) throws Exception {
        checkRow(exit, command, fixtures, scratch);
    }

    /**
     * Runs one row ({@code $} the fixtures, {@code OUT} a fresh output path, {@code _} a space)
     * plain and with {@code --json}: the exit code, no stack trace, one JSON document that says
     * the outcome, a one-line error for bad input with nothing written, no temporary files left
     * and the inputs unchanged. Shared with {@link HostileInputSiblingsTest}.
     */
    static void checkRow(int exit, String command, Path fixtures, Path scratch) throws Exception {
        Map<String, String> before = snapshot(fixtures);
        for (boolean json : List.of(false, true)) {
            Path out = Files.createTempDirectory(scratch, "case").resolve("out");
            List<String> args = new ArrayList<>();
            for (String word : command.split(" ")) {
                args.add(word.replace("$", fixtures.toString()).replace("OUT", out.toString()).replace('_', ' '));
            }
            if (json) {
                args.add("--json");
            }
            CliRunner r = CliRunner.run(args.toArray(String[]::new));
            String all = r.out() + r.err();
            assertThat(r.exit()).as(all).isEqualTo(exit);
            assertThat(all).doesNotContain("\tat ").doesNotContain("Exception").doesNotContain("internal error")
                    .doesNotContain("OutOfMemory");
            if (json) {
                JsonNode doc = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(r.out());
                assertThat(doc.isObject()).as(r.out()).isTrue();
                assertThat(doc.get("holds")).as(r.out()).isNotNull();
                assertThat(doc.get("holds").asBoolean()).as(r.out()).isEqualTo(exit == 0);
                assertThat(doc.get("exitCode")).as(r.out()).isNotNull();
                assertThat(doc.get("exitCode").asInt()).isEqualTo(exit);
                if (exit == 2) {
                    assertThat(doc.get("status").asText()).isIn("bad-input", "usage-error");
                    assertThat(doc.get("error").asText()).isNotBlank();
                }
            }
            if (exit == 2) {
                // one line on stderr; a suite's report says which case was bad input in its place
                assertThat(r.err().startsWith("error: ") || r.out().contains("bad input")).as(all).isTrue();
                assertThat(Files.exists(out, LinkOption.NOFOLLOW_LINKS)).as("nothing written to " + out).isFalse();
            }
            assertThat(leftovers(out.getParent())).as("temporary files left").isEmpty();
        }
        assertThat(snapshot(fixtures)).as("the inputs are unchanged").isEqualTo(before);
    }

    /** Every file under {@code root} (links not followed) with a digest of its bytes. */
    static Map<String, String> snapshot(Path root) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.toList()) {
                String key = root.relativize(p).toString();
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    files.put(key, digest(p));
                } else {
                    files.put(key, Files.isSymbolicLink(p) ? "link " + Files.readSymbolicLink(p) : "dir");
                }
            }
        }
        return files;
    }

    private static String digest(Path p) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<Path> leftovers(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.getFileName().toString().contains("stagecheck-tmp") || p.getFileName().toString().contains("stagecheck-probe")).toList();
        }
    }
}
