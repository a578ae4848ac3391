package org.stagecheck.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.stagecheck.golden.bench.CompareBench;
import org.stagecheck.golden.bench.Progress;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code stagecheck bench compare}: golden comparison speed next to numpy's (docs/bench.md,
 * "Comparison"). The data goes to .npy files in the work directory (deleted at the end) and
 * is compared from there as golden check compares files, streamed, so the heap it needs does not
 * grow with {@code --mib}. Progress lines on stderr; the report alone on stdout.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = {"Write two f32 tensor sets (default 1 GiB each) and a tolerance as .npy files, compare them as golden check does",
                "(streamed) under allclose and derived, and, on the same files in the same run, time numpy's np.allclose and the",
                "numpy form of the derived test; prints seconds, GB/s and the speed relative to np.allclose. Progress on stderr."})
final class BenchCompareCommand implements Callable<Integer> {
    /** A progress line at least this often while a phase runs. */
    private static final long PROGRESS_MILLIS = 3000;

    @Spec
    CommandSpec spec;

    @Option(names = "--mib", paramLabel = "N", description = "size of each set in MiB (default 1024)")
    int mib = 1024;

    @Option(names = "--tensors", paramLabel = "N", description = "tensors per set (default 8)")
    int tensors = 8;

    @Option(names = "--repeats", paramLabel = "N", description = "timed passes after a warm-up (default 3)")
    int repeats = 3;

    @Option(names = "--no-numpy", description = "do not run numpy")
    boolean noNumpy;

    @Option(names = "--work", paramLabel = "DIR", description = "where the data files are written and deleted after (default: the system's temporary directory)")
    Path work;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Override
    public Integer call() throws Exception {
        if (mib < 1 || tensors < 1 || repeats < 1 || repeats > BenchCommand.MAX_REPEATS || (long) mib * (1 << 20) / 4 / tensors < 1 || (long) mib * (1 << 20) / 4 / tensors > Integer.MAX_VALUE - 8) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--mib, --tensors and --repeats must be positive, --repeats at most " + BenchCommand.MAX_REPEATS + ", each tensor at most 2^31 elements");
        }
        if (work != null && !java.nio.file.Files.isDirectory(work)) {
            return Reply.badInput(spec.commandLine(), json, "--work " + work + " is not a directory");
        }
        Path dir = work != null ? work : Path.of(System.getProperty("java.io.tmpdir"));
        // the files are all the bench stores: refused up front when they cannot fit, not half-way through
        long needed = CompareBench.bytesOnDisk((long) mib << 20, tensors);
        long free = java.nio.file.Files.getFileStore(dir).getUsableSpace();
        if (needed + (64L << 20) > free) {
            return Reply.badInput(spec.commandLine(), json, String.format(java.util.Locale.ROOT,
                    "the bench writes %.2f GiB of data files and %s has %.2f GiB free; use --work DIR elsewhere or a smaller --mib",
                    needed / (double) (1L << 30), dir, free / (double) (1L << 30)));
        }
        CompareBench.Result r;
        try (Progress progress = Progress.to(spec.commandLine().getErr(), "bench compare", PROGRESS_MILLIS)) {
            r = CompareBench.run((long) mib << 20, tensors, repeats, dir, !noNumpy, progress);
        }
        BenchCommand.emit(spec, json, CompareBench.table(r));
        return ExitCode.OK;
    }
}
