package org.stagecheck.passcheck;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.Backend;
import org.stagecheck.reduce.Candidate;
import org.stagecheck.reduce.Windows;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.gen.GenSpace;
import org.stagecheck.spec.gen.KindName;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;

/**
 * Draws programs for PassCheck from a {@link RandomGenerator}, so any engine that supplies one can
 * drive it; the same generator state gives the same program. Every program drawn is inside the
 * configuration's {@link GenSpace} (kinds, dtypes, chips, multicast, splits). Authored cuts are
 * written once per cut and width and kept for the life of this object.
 */
public final class Generators {
    private final GenConfig config;
    private final Backend reference;
    private final Map<String, AuthorOutcome.Authored> authored = new HashMap<>();

    public Generators(GenConfig config, Backend reference) {
        this.config = config;
        this.reference = reference;
    }

    /** Draws of real programs outside the space before a try falls back to a random program. */
    private static final int ATTEMPTS = 8;

    /** A program from a source drawn by weight, inside the space. */
    public Generated draw(RandomGenerator r) {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Generated g = drawSource(r);
            if (config.space().problem(g.program()) == null) {
                return g;
            }
        }
        return random(r);
    }

    private Generated drawSource(RandomGenerator r) {
        int total = config.randomWeight() + config.authoredWeight() + config.splitWeight() + config.exampleWeight();
        int pick = r.nextInt(total);
        if (pick < config.randomWeight()) {
            return random(r);
        }
        if (pick >= total - config.exampleWeight()) {
            return example(r, config.examples().get(r.nextInt(config.examples().size())));
        }
        Cut cut = config.cuts().get(r.nextInt(config.cuts().size()));
        return pick < config.randomWeight() + config.authoredWeight() ? window(r, cut) : split(r, cut);
    }

    /** A random program inside the space ({@link RandomPrograms#draw}), with its certificate; tensors and parameters drawn too. */
    public Generated random(RandomGenerator r) {
        var g = RandomPrograms.draw(r, config.space());
        long seed = r.nextLong();
        Map<String, Long> params = new LinkedHashMap<>();
        for (Param p : g.program().params()) {
            params.put(p.name(), r.nextLong(p.min(), p.max() + 1));
        }
        Machine m = g.program().machine();
        return new Generated("random " + g.program().name() + " (" + m.chips() + " chips of " + m.width() + "x" + m.height() + ", "
                + g.program().stages().size() + " stages)", g.program(), g.certificate(),
                indicesInRange(g.program(), RandomBindings.forProgram(g.program(), seed)), params);
    }

    /**
     * {@code bound} with the values of every i32 tensor that is loaded into an index buffer folded
     * into the rows of the table it indexes ({@code floorMod}), so that a random program's
     * gathers read their tables instead of faulting on the first index outside them (a fault in
     * both runs would leave the law "same outputs" nothing to compare).
     */
    static Map<String, Tensor> indicesInRange(Program p, Map<String, Tensor> bound) {
        Map<String, String> loadedFrom = new HashMap<>();
        Map<String, Tensor> out = new LinkedHashMap<>(bound);
        var tensors = p.tensorsByName();
        for (Stage s : p.stages()) {
            if (!(s.kind() instanceof StageKind.Load l)) {
                continue;
            }
            if (l.pattern() instanceof AccessPattern.Indirect ind && loadedFrom.containsKey(ind.indexBuffer())) {
                String source = loadedFrom.get(ind.indexBuffer());
                Tensor t = out.get(source);
                int rows = tensors.get(l.tensor()).shape().dim(0);
                if (t != null && t.dtype() == DType.I32 && rows > 0) {
                    int[] v = t.toInts();
                    for (int i = 0; i < v.length; i++) {
                        v[i] = Math.floorMod(v[i], rows);
                    }
                    out.put(source, Tensor.fromInts(t.shape(), v));
                }
            }
            s.outs().forEach(b -> loadedFrom.put(b, l.tensor()));
        }
        return out;
    }

    /**
     * A random run of stages of an authored cut (the whole cut one time in four), inside the space:
     * the run starts at a stage the space allows and stops before the first it does not.
     */
    public Generated window(RandomGenerator r, Cut cut) {
        AuthorOutcome.Authored a = authored(cut, 1);
        return window(r, candidate(a), "tiny " + cut, true).orElseGet(() -> {
            Candidate whole = candidate(a);
            return new Generated("tiny " + cut, whole.program(), null, whole.bound(), whole.params());
        });
    }

    /**
     * A window {@code [from, to)} of {@code whole} (empty for the whole program, drawn one time in
     * four when {@code mayBeWhole}, or when no window verifies): {@code from} a stage the space
     * allows (its kind, its buffers' dtypes), {@code to} at most the next stage it does not. With
     * everything allowed, the draws are {@code from} in {@code [0, n)} and {@code to} in {@code (from, n]}.
     */
    private Optional<Generated> window(RandomGenerator r, Candidate whole, String label, boolean mayBeWhole) {
        Program p = whole.program();
        int n = p.stages().size();
        if (mayBeWhole && r.nextInt(4) == 0) {
            return Optional.empty();
        }
        List<Integer> starts = new ArrayList<>();
        boolean[] fits = new boolean[n];
        var buffers = p.buffersByName();
        for (int i = 0; i < n; i++) {
            Stage st = p.stages().get(i);
            fits[i] = config.space().kinds().contains(KindName.of(st))
                    && Stream.concat(st.ins().stream(), st.outs().stream())
                            .allMatch(b -> buffers.containsKey(b) && config.space().dtypes().contains(buffers.get(b).dtype()));
            if (fits[i]) {
                starts.add(i);
            }
        }
        if (starts.isEmpty()) {
            return Optional.empty();
        }
        int from = starts.get(r.nextInt(starts.size()));
        int end = from;
        while (end < n && fits[end]) {
            end++;
        }
        int to = r.nextInt(from + 1, end + 1);
        Optional<Candidate> w = Windows.of(whole, from, to, reference);
        // a window that cuts a multicast from its receivers is well formed but does not verify: not a real program
        if (w.isPresent() && new Verifier().verify(w.get().program(), null, Parent.none()).holds()) {
            Candidate c = w.get();
            return Optional.of(new Generated(label + " stages [" + from + ", " + to + ")", c.program(), null, c.bound(), c.params()));
        }
        return Optional.empty();
    }

    /**
     * One of the user's programs with random bound tensors and parameters: whole when it has a
     * certificate (a window would cut partials from their shards), else a window of it as for
     * the authored cuts (the whole one time in four).
     */
    public Generated example(RandomGenerator r, GenConfig.Example ex) {
        long seed = r.nextLong();
        Map<String, Long> params = new LinkedHashMap<>();
        for (Param p : ex.program().params()) {
            params.put(p.name(), r.nextLong(p.min(), p.max() + 1));
        }
        Candidate whole = new Candidate(ex.program(), indicesInRange(ex.program(), RandomBindings.forProgram(ex.program(), seed)), params);
        int n = whole.program().stages().size();
        Optional<Generated> w = ex.certificate() == null && n > 1 ? window(r, whole, "example " + ex.name(), true) : Optional.empty();
        return w.orElseGet(() -> new Generated("example " + ex.name(), whole.program(), ex.certificate(), whole.bound(), whole.params()));
    }

    /** An authored cut split over 2 chips, with its certificate (the unsplit cut when the split is refused). */
    public Generated split(Cut cut) {
        return split(cut, List.of(2));
    }

    /**
     * An authored cut split over one of the space's degrees (drawn; the next ones in turn where the
     * model refuses it), with its certificate; a window of the unsplit cut when splits are off or
     * every degree is refused.
     */
    public Generated split(RandomGenerator r, Cut cut) {
        List<Integer> degrees = List.copyOf(config.space().tpDegrees());
        if (degrees.isEmpty()) {
            return window(r, cut);
        }
        int first = r.nextInt(degrees.size());
        List<Integer> order = new ArrayList<>(degrees.subList(first, degrees.size()));
        order.addAll(degrees.subList(0, first));
        Generated g = split(cut, order);
        return g.certificate() == null ? window(r, cut) : g;
    }

    private Generated split(Cut cut, List<Integer> degrees) {
        for (int tp : degrees) {
            AuthorOutcome.Authored a = authored(cut, tp);
            if (a != null) {
                Candidate c = candidate(a);
                return new Generated("tiny " + cut + " tp " + tp, c.program(), a.certificate(), c.bound(), c.params());
            }
        }
        AuthorOutcome.Authored a = authored(cut, 1);
        Candidate c = candidate(a);
        return new Generated("tiny " + cut + " tp 1", c.program(), null, c.bound(), c.params());
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
