package org.stagecheck.passcheck;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.Backend;
import org.stagecheck.reduce.Candidate;
import org.stagecheck.reduce.Windows;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.verifier.Verifier;

/**
 * Draws programs for PassCheck from a {@link RandomGenerator}, so any engine that supplies one can
 * drive it; the same generator state gives the same program. Authored cuts are written once per
 * cut and width and kept for the life of this object.
 */
public final class Generators {
    private final GenConfig config;
    private final Backend reference;
    private final Map<String, AuthorOutcome.Authored> authored = new HashMap<>();

    public Generators(GenConfig config, Backend reference) {
        this.config = config;
        this.reference = reference;
    }

    public Generated draw(RandomGenerator r) {
        int total = config.randomWeight() + config.authoredWeight() + config.splitWeight();
        int pick = r.nextInt(total);
        if (pick < config.randomWeight()) {
            return random(r);
        }
        Cut cut = config.cuts().get(r.nextInt(config.cuts().size()));
        return pick < config.randomWeight() + config.authoredWeight() ? window(r, cut) : split(cut);
    }

    /** A random program of the configured sizes, with its certificate; tensors from the seed, parameters in range. */
    public Generated random(RandomGenerator r) {
        GenOptions o = new GenOptions(r.nextInt(config.minChips(), config.maxChips() + 1), r.nextInt(1, config.maxGrid() + 1),
                r.nextInt(2, config.maxGrid() + 1), r.nextInt(config.minStages(), config.maxStages() + 1), r.nextInt(2, config.maxDim() + 1));
        long seed = r.nextLong();
        var g = RandomPrograms.generateWithCertificate(seed, o);
        Map<String, Long> params = new LinkedHashMap<>();
        for (Param p : g.program().params()) {
            params.put(p.name(), r.nextLong(p.min(), p.max() + 1));
        }
        return new Generated("random " + o + " seed " + seed, g.program(), g.certificate(),
                RandomBindings.forProgram(g.program(), seed), params);
    }

    /** A random run of stages of an authored cut (the whole cut one time in four). */
    public Generated window(RandomGenerator r, Cut cut) {
        AuthorOutcome.Authored a = authored(cut, 1);
        Candidate whole = candidate(a);
        int n = whole.program().stages().size();
        if (r.nextInt(4) != 0) {
            int from = r.nextInt(n);
            int to = r.nextInt(from + 1, n + 1);
            Optional<Candidate> w = Windows.of(whole, from, to, reference);
            // a window that cuts a multicast from its receivers is well formed but does not verify: not a real program
            if (w.isPresent() && new Verifier().verify(w.get().program(), null, null).holds()) {
                Candidate c = w.get();
                return new Generated("tiny " + cut + " stages [" + from + ", " + to + ")", c.program(), null, c.bound(), c.params());
            }
        }
        return new Generated("tiny " + cut, whole.program(), null, whole.bound(), whole.params());
    }

    /** An authored cut split over 2 chips, with its certificate (the unsplit cut when the split is refused). */
    public Generated split(Cut cut) {
        AuthorOutcome.Authored a = authored(cut, 2);
        if (a == null) {
            a = authored(cut, 1);
        }
        Candidate c = candidate(a);
        return new Generated("tiny " + cut + " tp " + (a.certificate() == null ? 1 : 2), c.program(), a.certificate(), c.bound(), c.params());
    }

    private AuthorOutcome.Authored authored(Cut cut, int tp) {
        String key = cut + "/" + tp;
        if (!authored.containsKey(key)) {
            AuthorOutcome o = Author.author(ModelSpec.tiny(), cut, tp == 1 ? AuthorOptions.single() : AuthorOptions.split(tp));
            authored.put(key, o instanceof AuthorOutcome.Authored au ? au : null);
        }
        AuthorOutcome.Authored a = authored.get(key);
        if (a == null && tp == 1) {
            throw new IllegalArgumentException("the tiny model has no program for " + cut);
        }
        return a;
    }

    private static Candidate candidate(AuthorOutcome.Authored a) {
        Map<String, Tensor> bound = new LinkedHashMap<>(a.weights());
        bound.putAll(a.inputs());
        return new Candidate(a.program(), bound, a.params());
    }

    /** The parent's certificate restricted to what a shrunk program still declares. */
    static Certificate restrict(Certificate c, Program p) {
        if (c == null) {
            return null;
        }
        var tensors = p.tensorsByName();
        return new Certificate(c.shards().stream().filter(s -> tensors.containsKey(s.tensor())).toList(), c.remap(), c.claims());
    }
}
