package org.stagecheck.interp.bench;

import java.util.List;
import java.util.Locale;

/** The measured figures of one bench run, printable as a markdown table. */
public record BenchReport(String machine, double streamCopyGBs, List<Row> rows) {
    public BenchReport {
        rows = List.copyOf(rows);
    }

    /**
     * One case. {@code seconds} is the MatMul stage's kernel time; {@code runSeconds} the whole
     * program through {@code Interpreter.run} (loads included); baseline figures NaN when absent.
     */
    public record Row(String name, int m, int k, int n, String weightDtype, double seconds, double runSeconds,
                      double gflops, double gbs, String baseline, double baselineGflops) {}

    public String toTable() {
        StringBuilder sb = new StringBuilder();
        sb.append("machine: ").append(machine).append('\n');
        sb.append(String.format(Locale.ROOT, "STREAM-like copy: %.1f GB/s%n%n", streamCopyGBs));
        sb.append("| case | M x K x N | weights | kernel ms | run ms | GFLOP/s | GB/s | GB/s / copy | baseline | baseline GFLOP/s | vs baseline |\n");
        sb.append("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n");
        for (Row r : rows) {
            sb.append(String.format(Locale.ROOT, "| %s | %dx%dx%d | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |%n",
                    r.name(), r.m(), r.k(), r.n(), r.weightDtype(), r.seconds() * 1e3, r.runSeconds() * 1e3, r.gflops(), r.gbs(),
                    r.gbs() / streamCopyGBs, r.baseline(),
                    Double.isNaN(r.baselineGflops()) ? "-" : String.format(Locale.ROOT, "%.2f", r.baselineGflops()),
                    Double.isNaN(r.baselineGflops()) ? "-" : String.format(Locale.ROOT, "%.2f", r.gflops() / r.baselineGflops())));
        }
        return sb.toString();
    }
}
