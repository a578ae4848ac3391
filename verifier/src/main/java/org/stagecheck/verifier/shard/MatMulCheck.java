package org.stagecheck.verifier.shard;

import java.util.List;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.verifier.Code;

/**
 * The UnreducedShard rules of one {@code MatMul} stage (docs/verifier.md, "MatMul"):
 * <ol>
 *   <li>the product: an operand that is a shard along its contraction axis (A: axis 1, or 0 when
 *       transposed; B: axis 0, or 1 when transposed) makes a partial of its logical tensor over its
 *       slices; if both are, their slices must agree ({@link Code#SHARD_MISALIGNED}). A shard along
 *       the other axis makes the output a shard along the matching output axis (column- or
 *       row-parallel, a complete local value). A partial operand stays a partial when the other is
 *       full (a linear map by a replicated value) and is an error against a partial or a shard;</li>
 *   <li>the spill accumulation: the spill's value (unwritten = zero) plus the product; two
 *       partials of one tensor over disjoint slices give the union (a contraction streamed over
 *       stages), over overlapping slices {@link Code#PARTIAL_OVERLAP}; a partial with a full value
 *       {@link Code#PARTIAL_PLUS_FULL};</li>
 *   <li>the bias, added once after the accumulation: full bias plus partial is
 *       {@link Code#PARTIAL_PLUS_FULL}, the classic "bias added on every shard before the reduce".</li>
 * </ol>
 */
final class MatMulCheck {
    private final ShardChecker at;
    private final ComputeOp.MatMul op;
    private final List<Fact> ins;

    MatMulCheck(ShardChecker at, ComputeOp.MatMul op, List<Fact> ins) {
        this.at = at;
        this.op = op;
        this.ins = ins;
    }

    Fact run() {
        Fact a = ins.size() > 0 ? ins.get(0) : null;
        Fact b = ins.size() > 1 ? ins.get(1) : null;
        Fact product = product(a, b);
        if (product instanceof Fact.Tainted) {
            at.write(op.spill(), Fact.TAINTED);
            return product;
        }
        Fact acc = product;
        if (op.spill() != null) {
            acc = accumulate(at.factOf(op.spill()), product);
            at.write(op.spill(), acc);
            if (acc instanceof Fact.Tainted) {
                return acc;
            }
        }
        return op.bias() == null ? acc : addBias(acc, at.factOf(op.bias()));
    }

    private String in(int port) {
        return port < at.stage().ins().size() ? at.stage().ins().get(port) : null;
    }

    private Fact product(Fact a, Fact b) {
        int contractA = op.transposeA() ? 0 : 1;
        int contractB = op.transposeB() ? 1 : 0;
        if (a instanceof Fact.Partial pa) {
            return partialTimes(pa, b, 0);
        }
        if (b instanceof Fact.Partial pb) {
            return partialTimes(pb, a, 1);
        }
        Fact.Shard sa = a instanceof Fact.Shard s && s.axis() == contractA ? s : null;
        Fact.Shard sb = b instanceof Fact.Shard s && s.axis() == contractB ? s : null;
        if (sa != null && sb != null && !sa.slices().equals(sb.slices())) {
            at.reportHere(Code.SHARD_MISALIGNED, "/ins/1", in(1),
                    "MatMul contracts " + sa.tensor() + " (" + sa.slices() + " of " + sa.logical() + ") with " + sb.tensor() + " ("
                            + sb.slices() + " of " + sb.logical() + "): the shards hold different slices of the contraction axis.",
                    null, "MatMul contracts misaligned shards of " + sa.logical() + " and " + sb.logical());
            return Fact.TAINTED;
        }
        Fact.Shard contracted = sb != null ? sb : sa;
        if (contracted != null) {
            String what = "MatMul over " + contracted.tensor() + " " + (contracted.axis() == 0 ? "rows " : "columns ")
                    + contracted.slices() + " makes a partial of " + contracted.logical();
            View made = at.views().of("matmul" + flags() + " contracting a shard of " + (contracted == sb ? "B" : "A"));
            return new Fact.Partial(contracted.logical(), contracted.slices(), ReducePool.SUM, made, at.stepHere(what, contracted.origin()));
        }
        Fact.Shard rowShard = a instanceof Fact.Shard s ? s : null;   // A's other axis becomes output axis 0
        Fact.Shard colShard = b instanceof Fact.Shard s ? s : null;   // B's other axis becomes output axis 1
        if (rowShard != null && colShard == null) {
            return new Fact.Shard(rowShard.logical(), 0, rowShard.slices(), rowShard.tensor(), rowShard.origin());
        }
        if (colShard != null && rowShard == null) {
            return new Fact.Shard(colShard.logical(), 1, colShard.slices(), colShard.tensor(), colShard.origin());
        }
        return (a instanceof Fact.Tainted || b instanceof Fact.Tainted) ? Fact.TAINTED : Fact.FULL;
    }

    private Fact partialTimes(Fact.Partial p, Fact other, int partialPort) {
        String otherBuffer = in(1 - partialPort);
        if (p.pool() != ReducePool.SUM) {
            return fail(Code.PARTIAL_NONLINEAR, "/ins/" + partialPort, in(partialPort),
                    "MatMul multiplies the " + p.describe() + ", which only a " + p.pool().jsonName() + " all-reduce may take.", p,
                    "MatMul meets the " + p.describe());
        }
        return switch (other) {
            case Fact.Partial q -> fail(Code.PARTIAL_NONLINEAR, "/ins/" + (1 - partialPort), otherBuffer,
                    "MatMul multiplies two partials (" + p.describe() + " and " + q.describe() + "); a product of sums is not the sum of products.", p,
                    "MatMul multiplies the " + p.describe() + " by the " + q.describe());
            case Fact.Shard s -> fail(Code.PARTIAL_NONLINEAR, "/ins/" + (1 - partialPort), otherBuffer,
                    "MatMul multiplies the " + p.describe() + " by shard buffer '" + otherBuffer + "' (from " + s.tensor() + "), which differs per chip.", p,
                    "MatMul multiplies the " + p.describe() + " by shard buffer " + otherBuffer);
            case Fact.Tainted t -> Fact.TAINTED;
            case Fact.Full f -> keepPartial(p, partialPort);
            case null -> keepPartial(p, partialPort);
        };
    }

    private Fact keepPartial(Fact.Partial p, int partialPort) {
        View view = at.views().of("matmul" + flags() + " with the partial as " + (partialPort == 0 ? "A" : "B"), p.view());
        return new Fact.Partial(p.logical(), p.slices(), p.pool(), view,
                at.stepHere("MatMul by a replicated operand keeps the " + p.describe(), p.origin()));
    }

    private Fact accumulate(Fact spill, Fact product) {
        if (spill == null) {
            return product; // an unwritten accumulator starts at zero
        }
        if (spill instanceof Fact.Tainted) {
            return Fact.TAINTED;
        }
        if (spill instanceof Fact.Partial s && product instanceof Fact.Partial p) {
            if (!s.logical().equals(p.logical()) || s.pool() != p.pool()) {
                return fail(Code.PARTIAL_PARTITION_MISMATCH, "/kind/op/spill", op.spill(),
                        "MatMul accumulates the " + p.describe() + " into spill '" + op.spill() + "', which holds the " + s.describe() + ".", p,
                        "MatMul accumulates the " + p.describe() + " into the " + s.describe());
            }
            if (s.slices().overlaps(p.slices())) {
                return fail(Code.PARTIAL_OVERLAP, "/kind/op/spill", op.spill(),
                        "MatMul accumulates " + p.slices() + " of " + p.logical() + " into spill '" + op.spill() + "', which already holds "
                                + s.slices() + ", so the overlap is counted twice.", p,
                        "MatMul accumulates the " + p.describe() + " into spill " + op.spill() + " already holding " + s.slices());
            }
            // a contraction streamed over stages adds like views; anything else is recorded, so the
            // all-reduce sees the accumulation as a different function of the slices
            View view = s.view().equals(p.view()) ? p.view() : at.views().of("accumulate", s.view(), p.view());
            Fact.Partial union = new Fact.Partial(p.logical(), s.slices().union(p.slices()), p.pool(), view, null);
            return new Fact.Partial(union.logical(), union.slices(), union.pool(), view,
                    at.stepHere("MatMul accumulates into spill " + op.spill() + ", which now holds the " + union.describe(), p.origin()));
        }
        if (product instanceof Fact.Partial p) {
            return fail(Code.PARTIAL_PLUS_FULL, "/kind/op/spill", op.spill(),
                    "MatMul accumulates the " + p.describe() + " into spill '" + op.spill() + "', which holds a full value, before the reduce.", p,
                    "MatMul accumulates the " + p.describe() + " into spill " + op.spill() + " holding a full value");
        }
        if (spill instanceof Fact.Partial s) {
            return fail(Code.PARTIAL_PLUS_FULL, "/kind/op/spill", op.spill(),
                    "MatMul adds a full product to spill '" + op.spill() + "', which holds the " + s.describe() + ", before the reduce.", s,
                    "MatMul adds a full product to the " + s.describe() + " in spill " + op.spill());
        }
        if (spill instanceof Fact.Shard ss && product instanceof Fact.Shard ps
                && ss.axis() == ps.axis() && ss.slices().equals(ps.slices())) {
            return product;
        }
        return Fact.FULL;
    }

    private Fact addBias(Fact acc, Fact bias) {
        if (bias instanceof Fact.Tainted) {
            return Fact.TAINTED;
        }
        if (acc instanceof Fact.Partial p) {
            if (bias instanceof Fact.Partial q && q.samePartition(p)) {
                return new Fact.Partial(p.logical(), p.slices(), p.pool(), at.views().of("matmul bias", p.view(), q.view()),
                        at.stepHere("MatMul adds the bias's " + q.describe() + " to the " + p.describe(), p.origin()));
            }
            String kind = bias instanceof Fact.Partial q ? "the " + q.describe() : "full buffer " + op.bias();
            return fail(Code.PARTIAL_PLUS_FULL, "/kind/op/bias", op.bias(),
                    "MatMul adds bias '" + op.bias() + "' to the " + p.describe() + " before the reduce, so the bias is counted once per shard.", p,
                    "MatMul's bias adds " + kind + " to the " + p.describe());
        }
        if (bias instanceof Fact.Partial q) {
            return fail(Code.PARTIAL_PLUS_FULL, "/kind/op/bias", op.bias(),
                    "MatMul adds the " + q.describe() + " in bias '" + op.bias() + "' to a full product.", q,
                    "MatMul adds the " + q.describe() + " as a bias to a full product");
        }
        return acc;
    }

    private String flags() {
        return (op.transposeA() ? " A^T" : "") + (op.transposeB() ? " B^T" : "");
    }

    private Fact fail(Code code, String field, String buffer, String message, Fact.Partial p, String step) {
        at.reportHere(code, field, buffer, message, p, step);
        return Fact.TAINTED;
    }
}
