package org.stagecheck.interp.wellformed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * The differential fuzzer: well-formed seed programs (the generator's, which cover every kind,
 * pattern and op, and the checked-in examples), one random {@link Operator} applied per mutant,
 * each mutant judged by {@link Agreement}. Deterministic for a given seed list and count.
 */
final class DifferentialFuzzer {
    /** One mutant and what the two sides said. */
    record Case(String base, Operator operator, Program mutant, Agreement.Verdict verdict) {
        String describe() {
            StringBuilder sb = new StringBuilder(base + " / " + operator + ":");
            verdict.findings().forEach(d -> sb.append("\n  validator: ").append(d.render()));
            verdict.structural().forEach(d -> sb.append("\n  evaluator: ").append(d.render()));
            if (verdict.findings().isEmpty()) {
                sb.append("\n  validator: (accepts)");
            }
            if (verdict.structural().isEmpty()) {
                sb.append("\n  evaluator: (no structural fault)");
            }
            return sb.toString();
        }
    }

    /** Everything one campaign saw. */
    record Report(int mutants, int accepted, List<Case> unsafe, List<Case> stricter, Map<String, Integer> rejectionCodes) {}

    private DifferentialFuzzer() {
    }

    /** The seed programs: generated ones over a few machines and sizes, then the examples. */
    static List<Map.Entry<String, Program>> seeds(Path examples) throws IOException {
        List<Map.Entry<String, Program>> out = new ArrayList<>();
        long[] seeds = {1, 2, 3, 5, 8, 13};
        for (long s : seeds) {
            GenOptions opts = s % 2 == 0 ? GenOptions.small() : new GenOptions(3, 2, 2, 60, 6);
            out.add(Map.entry("random-" + s, RandomPrograms.generate(s, opts)));
        }
        try (Stream<Path> files = Files.list(examples)) {
            for (Path f : files.filter(x -> x.toString().endsWith(".json")).sorted().toList()) {
                try {
                    out.add(Map.entry(f.getFileName().toString(), new ProgramCodec().read(new JsonReader().read(f))));
                } catch (Exception e) {
                    throw new IOException("example " + f + " does not read: " + e.getMessage(), e);
                }
            }
        }
        return out;
    }

    /** {@code perSeed} mutants of each seed program, from one random stream started at {@code seed}. */
    static Report run(List<Map.Entry<String, Program>> bases, int perSeed, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Operator[] ops = Operator.values();
        int mutants = 0;
        int accepted = 0;
        List<Case> unsafe = new ArrayList<>();
        List<Case> stricter = new ArrayList<>();
        Map<String, Integer> codes = new TreeMap<>();
        for (Map.Entry<String, Program> base : bases) {
            for (int k = 0; k < perSeed; k++) {
                Operator op = ops[r.nextInt(ops.length)];
                Program mutant;
                try {
                    mutant = op.apply(base.getValue(), r);
                } catch (IllegalArgumentException e) {
                    mutant = null; // a value the IR's constructors refuse: no codec could build it either
                }
                if (mutant == null || mutant.equals(base.getValue())) {
                    continue;
                }
                mutants++;
                Agreement.Verdict v = Agreement.judge(mutant, r.nextLong());
                Case c = new Case(base.getKey(), op, mutant, v);
                if (v.validatorAccepts()) {
                    accepted++;
                } else {
                    v.findings().stream().map(Diagnostic::code).distinct().forEach(code -> codes.merge(code, 1, Integer::sum));
                }
                if (v.unsafe()) {
                    unsafe.add(c);
                } else if (v.stricter()) {
                    stricter.add(c);
                }
            }
        }
        return new Report(mutants, accepted, unsafe, stricter, codes);
    }
}
