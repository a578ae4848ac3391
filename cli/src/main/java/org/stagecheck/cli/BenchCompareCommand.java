package org.stagecheck.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;

import org.stagecheck.golden.bench.CompareBench;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code stagecheck bench compare}: golden comparison speed next to numpy's (docs/golden.md, "Speed"). */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = {"Compare two f32 tensor sets (default 1 GiB each) under allclose and derived, and, on the same data in the",
                "same run, numpy's np.allclose and the numpy form of the derived test; prints GB/s for each."})
final class BenchCompareCommand implements Callable<Integer> {
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

    @Option(names = "--work", paramLabel = "DIR", description = "where numpy's copy of the data is written (default: the system's temporary directory)")
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
        long needed = 3L * mib << 20;
        if (needed > Runtime.getRuntime().maxMemory() * 0.85) {
            return Reply.badInput(spec.commandLine(), json, "the bench holds " + (needed >> 20)
                    + " MiB; give more with STAGECHECK_JAVA_OPTS=-Xmx<size> or use a smaller --mib");
        }
        Path dir = work != null ? work : Path.of(System.getProperty("java.io.tmpdir"));
        CompareBench.Result r = CompareBench.run((long) mib << 20, tensors, repeats, dir, !noNumpy);
        BenchCommand.emit(spec, json, CompareBench.table(r));
        return ExitCode.OK;
    }
}
