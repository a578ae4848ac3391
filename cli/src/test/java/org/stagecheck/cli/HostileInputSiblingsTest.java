package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The second hostile-input sweep, over what {@link HostileInputTest} did not reach: named pipes
 * and devices where a file is read (a pipe with no writer must not hang, {@code /dev/zero} must not
 * be read for ever), link loops and directories where files belong, content and names that are
 * not UTF-8, the options added since ({@code reduce --fails-like}, {@code verify --unsplit}, the
 * tolerance policies with NaN, negative and huge numbers, every {@code bench} argument), one
 * {@code NAME=VALUE} key given twice, parameters that are not numbers or overflow, outputs under a
 * file, in a place where nothing can be created, or in a directory that already holds files.
 *
 * <p>Each row gives the exit code; on every row, text and {@code --json} alike: no stack trace,
 * with {@code --json} exactly one JSON document carrying the outcome, no input changed, nothing
 * half-written. A row that hangs fails on the timeout instead of stopping the build. Rows use the
 * notation of {@link HostileInputTest} ({@code $} the fixtures, {@code OUT} a fresh output path,
 * {@code _} a space).
 */
@Tag("slow")
class HostileInputSiblingsTest {
    @TempDir
    static Path fixtures;

    @TempDir
    static Path scratch;

    @BeforeAll
    static void writeFixtures() throws Exception {
        HostileSiblingFixtures.write(fixtures);
    }

    static Stream<Arguments> rows() {
        List<Arguments> rows = new ArrayList<>();
        // a named pipe with no writer, a device that never ends: refused before they are opened
        for (String pipe : List.of("validate $/fifo.json", "run $/fifo.json --random 1 --out OUT", "verify $/tp.json --cert $/fifo.json",
                "verify $/tp.json --cert $/cert.json --unsplit $/fifo.json", "golden record $/fifo.json --random 1 --out OUT",
                "cuda emit $/fifo.json --out OUT", "reduce $/p.json --inputs $/case --fails-like $/fifo.json --out OUT",
                "reduce $/fifo.json --inputs $/case --test true --out OUT", "diff $/trace $/trace --program $/fifo.json",
                "author --model $/fifo.json --cut decode --ctx 4 --out OUT", "bench decode --model $/fifo.json",
                "run $/p.json --inputs $/in-fifo-manifest --out OUT", "run $/p.json --inputs $/in-fifo-npy --out OUT",
                "golden record $/p.json --inputs $/in-fifo-npy --out OUT", "golden check $/case --actual $/trace-fifo",
                "golden check $/case-fifo", "diff --replay --program $/p.json --inputs $/in-fifo-manifest --actual $/trace",
                "validate /dev/zero", "verify $/tp.json --cert /dev/zero", "reduce $/p.json --inputs $/case --fails-like /dev/zero --out OUT",
                "run $/p.json --random 1 --bind x=/dev/zero --out OUT")) {
            rows.add(row(2, pipe));
        }
        // link loops and directories where a file belongs
        for (String odd : List.of("validate $/loop.json", "verify $/tp.json --cert $/cert.json --unsplit $/loop.json",
                "verify $/tp.json --cert $/cert.json --unsplit $/dir.json", "reduce $/p.json --inputs $/case --fails-like $/dir.json --out OUT",
                "reduce $/p.json --inputs $/case --fails-like $/loop.json --out OUT", "author --model $/dir.json --cut decode --ctx 4 --out OUT",
                "run $/p.json --inputs $/loopdir --out OUT", "golden check $/loopdir", "run $/p.json --random 1 --out $/loopdir",
                "cuda emit $/p.json --out $/loopdir", "run $/p.json --random 1 --bind x=$/dir.json --out OUT")) {
            rows.add(row(2, odd));
        }
        // content that is not UTF-8; names Java cannot open (a NUL, bytes the JVM decoded to U+FFFD)
        for (String bytes : List.of("validate $/bad8.json", "verify $/tp.json --cert $/bad8.json", "verify $/tp.json --cert $/cert.json --unsplit $/bad8.json",
                "reduce $/p.json --inputs $/case --fails-like $/bad8.json --out OUT", "validate $/n\u0000.json", "validate $/n\uFFFD.json",
                "run $/p.json --random 1 --out $/n\uFFFD", "verify $/tp.json --sarif $/n\u0000.sarif")) {
            rows.add(row(2, bytes));
        }
        // reports that reduce --fails-like cannot take
        for (String report : List.of("rep-array", "rep-nocommand", "rep-min", "p", "rep-pass")) {
            rows.add(row(2, "reduce $/p.json --inputs $/case --fails-like $/" + report + ".json --out OUT"));
        }
        rows.add(row(2, "reduce $/p.json --inputs $/case --fails-like $/rep-pass.json --test true --out OUT"));
        rows.add(row(2, "reduce $/p.json --inputs $/case --fails-like $/rep-pass.json --backend no-such-backend --out OUT"));
        rows.add(row(2, "reduce $/p.json --inputs $/case --out OUT"));
        // verify --unsplit: a program that is not the parent is a finding; a malformed one is bad input
        rows.add(row(1, "verify $/tp.json --cert $/cert.json --unsplit $/p.json"));
        rows.add(row(0, "verify $/tp.json --cert $/cert.json --unsplit $/parent.json"));
        rows.add(row(2, "verify $/tp.json --cert $/cert.json --unsplit $/truncated.json"));
        rows.add(row(2, "verify $/tp.json --cert $/cert.json --unsplit $/missing.json"));
        // one NAME=VALUE key given twice: never "the last one wins" without a word
        rows.add(row(2, "run $/kv.json --random 1 --param pos=1 --param pos=2 --out OUT"));
        rows.add(row(2, "run $/p.json --random 1 --bind x=$/x.npy --bind x=$/x.npy --out OUT"));
        rows.add(row(2, "golden record $/p.json --random 1 --output-tolerance y=exact --output-tolerance y=exact --out OUT"));
        rows.add(row(2, "golden record $/kv.json --random 1 --param pos=1 --param pos=1 --out OUT"));
        rows.add(row(2, "diff $/trace $/trace --program $/kv.json --param pos=1 --param pos=1"));
        rows.add(row(2, "cuda run $/kv.json --random 1 --emulate --param pos=1 --param pos=2 --out OUT"));
        // parameter values that are no value of the parameter
        for (String value : List.of("pos=abc", "pos=", "pos=1.5", "pos=0x10", "pos=99999999999999999999", "pos=-1", "pos=32", "=1", "pos=1=2",
                "pos=-9223372036854775808")) {
            rows.add(row(2, "run $/kv.json --random 1 --param " + value + " --out OUT"));
        }
        rows.add(row(0, "run $/kv.json --random 1 --param pos=31 --out OUT"));
        // tolerance policies with NaN, negative, zero and huge numbers
        for (String policy : List.of("derived_NaN", "derived_-1", "derived_1e400", "derived_0", "allclose_-1_0", "allclose_1e400_1",
                "allclose_1e-5_Infinity", "pcc_NaN", "pcc_-2", "ulp_1e30", "ulp_NaN", "ulp", "exact_1")) {
            rows.add(row(2, "golden record $/p.json --random 1 --tolerance " + policy + " --out OUT"));
        }
        rows.add(row(2, "golden record $/p.json --random 1 --output-tolerance y=ulp_-1 --out OUT"));
        for (String policy : List.of("ulp_-1", "pcc_2", "derived_NaN", "allclose_NaN_1", "allclose_1")) {
            rows.add(row(2, "diff $/trace $/trace --program $/p.json --policy " + policy));
        }
        // bench arguments: out of range is exit 2 with a message, never an overflow, an OOM or hours of work
        for (String bench : List.of("decode --model tiny --steps 2147483647 --ctx 16", "decode --model tiny --steps 0", "decode --model tiny --ctx -5",
                "decode --model tiny --ctx 2147483647 --steps 1", "decode --model tiny --threads 100000", "decode --model tiny --threads 0",
                "decode --model tiny --matvec-size 0", "decode --model tiny --matvec-size 99999", "decode --model tiny --tp 0",
                "decode --model tiny --tp -2", "decode --model tiny --tp 1000000", "decode --model nope", "interp --rows 2000000000 --size 8",
                "interp --threads 100000", "interp --repeats 2147483647", "interp --size 0", "interp --size 99999999999", "verifier 7",
                "verifier 2147483647", "verifier -1", "compare --mib 0", "compare --tensors 0", "compare --repeats 2147483647",
                "compare --repeats 0", "compare --mib 99999999", "compare --mib 1 --tensors 1 --repeats 1 --no-numpy --work $/p.json")) {
            rows.add(row(2, "bench " + bench));
        }
        rows.add(row(0, "bench compare --mib 1 --tensors 1 --repeats 1 --no-numpy"));
        // outputs under a file, where nothing can be created, in a directory that holds the user's files
        for (String under : List.of("run $/p.json --random 1 --out $/p.json/x", "golden record $/p.json --random 1 --out $/p.json/x",
                "author --model tiny --cut decode --ctx 4 --out $/p.json/x", "cuda emit $/p.json --out $/p.json/x",
                "cuda run $/p.json --random 1 --emulate --out $/p.json/x", "reduce $/p.json --inputs $/case --test true --out $/p.json/x",
                "diff $/trace $/trace --program $/p.json --html $/p.json/x.html", "golden check $/case --junit $/p.json/j.xml",
                "golden check $/case --html $/p.json/j.html", "verify $/tp.json --sarif $/p.json/x.sarif",
                "run $/p.json --random 1 --out /proc/stagecheck-out", "golden record $/p.json --random 1 --out /proc/stagecheck-out",
                "author --model tiny --cut decode --ctx 4 --out /proc/stagecheck-out", "verify $/tp.json --sarif /proc/stagecheck.sarif",
                "author --model tiny --cut decode --ctx 4 --out $/full", "reduce $/p.json --inputs $/case --test true --out $/full",
                "golden record $/p.json --random 1 --out $/full", "golden check $/case --junit $/full")) {
            rows.add(row(2, under));
        }
        return rows.stream();
    }

    private static Arguments row(int exit, String command) {
        return Arguments.of(exit, command);
    }

    @ParameterizedTest(name = "[{index}] exit {0}: {1}")
    @MethodSource("rows")
    @Timeout(value = 120, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aClearAnswerAndTheRightExitCodeNeverAHang(int exit, String command) throws Exception {
        HostileInputTest.checkRow(exit, command, fixtures, scratch);
    }
}
