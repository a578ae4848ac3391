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

    @Override
    public Integer call() throws Exception {
        if (mib < 1 || tensors < 1 || repeats < 1 || (long) mib * (1 << 20) / 4 / tensors < 1 || (long) mib * (1 << 20) / 4 / tensors > Integer.MAX_VALUE - 8) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--mib, --tensors and --repeats must be positive, each tensor at most 2^31 elements");
        }
        long needed = 3L * mib << 20;
        if (needed > Runtime.getRuntime().maxMemory() * 0.85) {
            spec.commandLine().getErr().println("error: the bench holds " + (needed >> 20) + " MiB; give more with STAGECHECK_JAVA_OPTS=-Xmx<size> or use a smaller --mib");
            return ExitCode.BAD_INPUT;
        }
        Path dir = work != null ? work : Path.of(System.getProperty("java.io.tmpdir"));
        CompareBench.Result r = CompareBench.run((long) mib << 20, tensors, repeats, dir, !noNumpy);
        spec.commandLine().getOut().print(CompareBench.table(r));
        spec.commandLine().getOut().flush();
        return ExitCode.OK;
    }
}
