package org.stagecheck.verifier.adversarial;

import java.nio.file.Files;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;

class CorpusDump {
    @Test
    void dump() throws Exception {
        List<String> names;
        try (Stream<java.nio.file.Path> s = Files.walk(CorpusCase.ROOT)) {
            names = s.filter(p -> Files.exists(p.resolve("program.json"))).map(p -> CorpusCase.ROOT.relativize(p).toString()).sorted().toList();
        }
        StringBuilder sb = new StringBuilder();
        for (String n : names) {
            CorpusCase c = CorpusCase.load(n);
            VerifyReport alone = new Verifier().verify(c.program(), c.certificate(), null);
            VerifyReport with = new Verifier().verify(c.program(), c.certificate(), c.parent());
            CorpusRuns.Judgement j = CorpusRuns.judge(c);
            sb.append(String.format("row(\"%s\", \"%s\", \"%s\", %s), // %s%n", n, codes(alone), codes(with), j.verdict(), j.detail()));
        }
        Files.writeString(java.nio.file.Path.of("target", "corpus-dump.txt"), sb.toString());
    }

    static String codes(VerifyReport r) {
        return r.holds() ? "holds" : String.join(",", new TreeSet<>(r.codes()));
    }
}
