package org.stagecheck.spec.gen;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.ir.ValueType;

/** Fragments that span cores or chips: a multicast with its receivers, and an all-reduce of partial matmuls. */
final class CrossCoreFragments {
    private CrossCoreFragments() {}

    /**
     * A multicast Load on a group's sender followed by one Recv on every receiver (in the group's
     * row-by-row order); the first receiver transforms what it got and stores it.
     */
    static void multicast(GenContext g) {
        int chip = g.rnd.nextInt(g.chips);
        Site sender = g.site(chip);
        int x0 = g.rnd.nextInt(g.width);
        int y0 = g.rnd.nextInt(g.height);
        Rect rect = new Rect(x0, y0, g.rnd.nextInt(1, g.width - x0 + 1), g.rnd.nextInt(1, g.height - y0 + 1));
        if (rect.width() * rect.height() == 1 && rect.contains(sender.x(), sender.y())) {
            rect = new Rect(0, 0, g.width, g.height);
        }
        Group group = g.b.group(chip, rect, sender);
        DType dt = g.anyType();
        int r = g.dim();
        int c = g.dim();
        Shape shape = Shape.of(r, c);
        String t = g.b.tensor("bcast", dt, shape, chip, TensorRole.WEIGHT);
        String sent = g.b.buffer("sent", dt, shape, sender);
        g.b.stage(sender, List.of(), List.of(sent), new StageKind.Load(t,
                new AccessPattern.Block(GenContext.zeros(2), shape), 1, group.name()));
        List<Site> receivers = group.receivers();
        String firstGot = null;
        for (Site rs : receivers) {
            String got = g.b.buffer("got", dt, shape, rs);
            g.b.stage(rs, List.of(), List.of(got), new StageKind.Recv(group.name()));
            if (firstGot == null) {
                firstGot = got;
            }
        }
        Site first = receivers.get(0);
        String out = firstGot;
        if (g.allows(KindName.GENERIC)) {
            out = g.b.buffer("recvd", dt, shape, first);
            Expr e = g.exprs(List.of(ValueType.of(dt)), 2).usingAllInputs(ValueType.of(dt), 2);
            g.b.stage(first, List.of(firstGot), List.of(out), new StageKind.Compute(new ComputeOp.Generic(e)));
        }
        g.storeWhole("recvd", out, dt, shape, first, TensorRole.OUTPUT);
    }

    /**
     * Tensor parallelism over distinct chips (2 to 4, or one of the allowed degrees), partials in f32 when allowed: chip i multiplies its column slice of a
     * replicated input (declared a whole copy) by its row shard of a logical weight (declared as a {@link ShardDecl}), giving
     * a partial sum; an {@code AllReduce(SUM)} with the canonical combine gives every member the full
     * value, and the first member stores it.
     */
    static void allReduce(GenContext g) {
        int members = members(g);
        int[] chips = distinctChips(g, members);
        int m = g.dim();
        int n = g.dim();
        int ks = g.dim(4);
        int k = members * ks;
        DType dt = g.floatType();
        DType partial = g.allows(DType.F32) ? DType.F32 : dt;
        String logical = g.b.logicalName("proj");
        String input = logical + ".input"; // names the logical x without drawing a fresh name (the program stays as it was)
        List<String> partials = new ArrayList<>();
        List<String> outs = new ArrayList<>();
        List<Site> sites = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            Site site = g.site(chips[i]);
            sites.add(site);
            String x = g.b.tensor("x", dt, Shape.of(m, k), site.chip(), TensorRole.INPUT);
            // every chip's x is a whole copy of one logical input: the certificate says so
            g.b.shard(new ShardDecl(x, input, 0, 0, m, m));
            String xa = g.b.buffer("xs", dt, Shape.of(m, ks), site);
            g.b.stage(site, List.of(), List.of(xa), new StageKind.Load(x,
                    new AccessPattern.Block(List.of(Offset.constant(0), Offset.constant((long) i * ks)), Shape.of(m, ks)), 1, null));
            String w = g.b.tensor("wshard", dt, Shape.of(ks, n), site.chip(), TensorRole.WEIGHT);
            g.b.shard(new ShardDecl(w, logical, 0, (long) i * ks, (long) (i + 1) * ks, k));
            String wb = g.b.buffer("ws", dt, Shape.of(ks, n), site);
            g.b.stage(site, List.of(), List.of(wb), new StageKind.Load(w,
                    new AccessPattern.Block(GenContext.zeros(2), Shape.of(ks, n)), 1, null));
            String p = g.b.buffer("partial", partial, Shape.of(m, n), site);
            g.b.stage(site, List.of(xa, wb), List.of(p), new StageKind.Compute(ComputeOp.MatMul.plain()));
            partials.add(p);
            outs.add(g.b.buffer("reduced", partial, Shape.of(m, n), site));
        }
        g.b.stage(sites.get(0), partials, outs, StageKind.AllReduce.of(ReducePool.SUM, logical, members));
        g.storeWhole("reduced", outs.get(0), partial, Shape.of(m, n), sites.get(0), TensorRole.OUTPUT);
    }

    /**
     * The chips a split spans: one of the allowed degrees that the machine holds; with the
     * degrees 2..k allowed, a draw in that range (the draw every program made before degrees were a choice).
     */
    private static int members(GenContext g) {
        List<Integer> degrees = g.space.tpDegrees().stream().filter(d -> d <= g.chips).toList();
        int top = degrees.getLast();
        if (degrees.getFirst() == 2 && degrees.size() == top - 1) {
            return g.rnd.nextInt(2, top + 1);
        }
        return degrees.get(g.rnd.nextInt(degrees.size()));
    }

    /** {@code count} (at most 4) distinct chip indices in random order, by rejection: O(count^2), not O(chips). */
    private static int[] distinctChips(GenContext g, int count) {
        int[] out = new int[count];
        int have = 0;
        while (have < count) {
            int c = g.rnd.nextInt(g.chips);
            boolean fresh = true;
            for (int i = 0; i < have; i++) {
                fresh &= out[i] != c;
            }
            if (fresh) {
                out[have++] = c;
            }
        }
        return out;
    }
}
