package org.stagecheck.golden.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * numpy on the bench's own files, in a python3 process that stays up for the whole bench, so that
 * its passes can alternate with stagecheck's and both meet the same load on a shared machine. The
 * arrays are the .npy files mapped into memory ({@code np.load(f, mmap_mode='r')}: the same pages
 * stagecheck reads, no copy); a pass runs one test over every tensor and reports its wall and CPU
 * seconds: {@code np.allclose(a, e, rtol=1.3e-06, atol=1e-05)}, or the numpy form of the derived
 * test, {@code np.all(np.abs(a - e) <= t)}.
 */
final class NumpyRun implements AutoCloseable {
    /** The two tests, as the script names them. */
    enum Test {
        ALLCLOSE("allclose", "np.allclose(a, e, rtol=1.3e-06, atol=1e-05)"),
        DERIVED("derived", "np.all(np.abs(a - e) <= tol)");

        final String word;
        final String spelling;

        Test(String word, String spelling) {
            this.word = word;
            this.spelling = spelling;
        }
    }

    /** One pass: wall and CPU seconds, and whether every tensor passed. */
    record Pass(double seconds, double cpuSeconds, boolean passed) {}

    private final Process process;
    private final BufferedReader out;
    private final PrintWriter in;
    private final String version;

    private NumpyRun(Process process, BufferedReader out, PrintWriter in, String version) {
        this.process = process;
        this.out = out;
        this.in = in;
        this.version = version;
    }

    /** E.g. {@code numpy 2.4.6}. */
    String version() {
        return version;
    }

    /**
     * Starts python3 on {@code files}; null, with the reason in {@code why[0]}, when there is no
     * python3 or no numpy or the script fails to load the files.
     */
    static NumpyRun start(BenchData.Files files, String[] why) throws IOException {
        List<String> args = new ArrayList<>(List.of("python3", "-c", SCRIPT));
        for (int i = 0; i < files.expected().size(); i++) {
            args.add(files.expected().get(i).toString());
            args.add(files.actual().get(i).toString());
            args.add(files.tolerance().get(i).toString());
        }
        Process p;
        try {
            p = new ProcessBuilder(args).redirectErrorStream(true).start();
        } catch (IOException ex) {
            why[0] = "numpy not measured: python3 was not found";
            return null;
        }
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        PrintWriter in = new PrintWriter(p.getOutputStream(), true, StandardCharsets.UTF_8);
        String last = "python3 failed";
        String version = null;
        for (String line = out.readLine(); line != null; line = out.readLine()) {
            String[] w = line.strip().split("\\s+");
            if (w[0].equals("version") && w.length > 1) {
                version = "numpy " + w[1];
            } else if (w[0].equals("ready")) {
                return new NumpyRun(p, out, in, version);
            } else if (!line.isBlank()) {
                last = line.strip();   // a warning or a traceback: the reason, if it fails
            }
        }
        p.destroyForcibly();
        why[0] = "numpy not measured: " + (last.contains("No module named") ? "python3 has no numpy" : last);
        return null;
    }

    /** One pass of {@code test} over every tensor. */
    Pass pass(Test test) throws IOException {
        in.println(test.word);
        String line = out.readLine();
        String[] w = line == null ? new String[0] : line.strip().split("\\s+");
        if (w.length != 4 || !w[0].equals(test.word)) {
            throw new IOException("the numpy process stopped answering" + (line == null ? "" : ": " + line.strip()));
        }
        return new Pass(Double.parseDouble(w[1]), Double.parseDouble(w[2]), w[3].equals("True"));
    }

    @Override
    public void close() {
        in.close();
        try {
            if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Maps the files given as (expected, actual, tolerance) triples, then runs one pass per line of stdin naming a test. */
    private static final String SCRIPT = String.join("\n",
            "import sys, time",
            "import numpy as np",
            "print('version', np.__version__, flush=True)",
            "f = sys.argv[1:]",
            "sets = [(np.load(f[i], mmap_mode='r'), np.load(f[i + 1], mmap_mode='r'), np.load(f[i + 2], mmap_mode='r')) for i in range(0, len(f), 3)]",
            "tests = {'allclose': lambda e, a, t: np.allclose(a, e, rtol=1.3e-06, atol=1e-05),",
            "         'derived': lambda e, a, t: bool(np.all(np.abs(a - e) <= t))}",
            "print('ready', flush=True)",
            "for line in sys.stdin:",
            "    name = line.strip()",
            "    t0, c0 = time.perf_counter(), time.process_time()",
            "    ok = all([tests[name](e, a, t) for e, a, t in sets])",
            "    print(name, time.perf_counter() - t0, time.process_time() - c0, ok, flush=True)");
}
