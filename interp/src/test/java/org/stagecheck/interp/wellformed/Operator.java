package org.stagecheck.interp.wellformed;

import static org.stagecheck.interp.wellformed.Edits.blockOf;
import static org.stagecheck.interp.wellformed.Edits.patternOf;
import static org.stagecheck.interp.wellformed.Edits.pick;
import static org.stagecheck.interp.wellformed.Edits.set;
import static org.stagecheck.interp.wellformed.Edits.stagesWhere;
import static org.stagecheck.interp.wellformed.Edits.withKind;
import static org.stagecheck.interp.wellformed.Edits.withStage;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ScalarBody;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/**
 * The single-point mutations of the differential fuzzer, one per constant. Each returns the
 * mutated program, or null when the program has nothing the operator can change (a value
 * constructor that rejects the change throws IllegalArgumentException, which the caller treats
 * the same way: the codec could not have built that program either).
 */
enum Operator {
    BUFFER_DIM {
        Program apply(Program p, SplittableRandom r) {
            int i = r.nextInt(p.buffers().size());
            BufferDecl b = p.buffers().get(i);
            return p.withBuffers(set(p.buffers(), i, Edits.withShape(b, Edits.changeDim(b.shape(), r))));
        }
    },
    BUFFER_RANK {
        Program apply(Program p, SplittableRandom r) {
            int i = r.nextInt(p.buffers().size());
            BufferDecl b = p.buffers().get(i);
            return p.withBuffers(set(p.buffers(), i, Edits.withShape(b, Edits.changeRank(b.shape(), r))));
        }
    },
    BUFFER_DTYPE {
        Program apply(Program p, SplittableRandom r) {
            int i = r.nextInt(p.buffers().size());
            BufferDecl b = p.buffers().get(i);
            return p.withBuffers(set(p.buffers(), i, Edits.withDtype(b, Edits.otherDtype(b.dtype(), r))));
        }
    },
    BUFFER_SITE {
        Program apply(Program p, SplittableRandom r) {
            int i = r.nextInt(p.buffers().size());
            BufferDecl b = p.buffers().get(i);
            return p.withBuffers(set(p.buffers(), i, new BufferDecl(b.name(), b.dtype(), b.shape(), randomSite(p, r))));
        }
    },
    TENSOR_DIM {
        Program apply(Program p, SplittableRandom r) {
            int i = r.nextInt(p.tensors().size());
            TensorDecl t = p.tensors().get(i);
            return Edits.withTensors(p, set(p.tensors(), i, new TensorDecl(t.name(), t.dtype(), Edits.changeDim(t.shape(), r), t.chip(), t.role())));
        }
    },
    TENSOR_RANK {
        Program apply(Program p, SplittableRandom r) {
            int i = r.nextInt(p.tensors().size());
            TensorDecl t = p.tensors().get(i);
            return Edits.withTensors(p, set(p.tensors(), i, new TensorDecl(t.name(), t.dtype(), Edits.changeRank(t.shape(), r), t.chip(), t.role())));
        }
    },
    TENSOR_DTYPE {
        Program apply(Program p, SplittableRandom r) {
            int i = r.nextInt(p.tensors().size());
            TensorDecl t = p.tensors().get(i);
            return Edits.withTensors(p, set(p.tensors(), i, new TensorDecl(t.name(), Edits.otherDtype(t.dtype(), r), t.shape(), t.chip(), t.role())));
        }
    },
    TENSOR_CHIP_OR_ROLE {
        Program apply(Program p, SplittableRandom r) {
            int i = r.nextInt(p.tensors().size());
            TensorDecl t = p.tensors().get(i);
            TensorDecl n = r.nextBoolean()
                    ? new TensorDecl(t.name(), t.dtype(), t.shape(), (t.chip() + 1) % (p.machine().chips() + 1), t.role())
                    : new TensorDecl(t.name(), t.dtype(), t.shape(), t.chip(), pick(List.of(TensorRole.values()), r));
            return Edits.withTensors(p, set(p.tensors(), i, n));
        }
    },
    PARAM_RANGE {
        Program apply(Program p, SplittableRandom r) {
            if (p.params().isEmpty()) {
                return null;
            }
            int i = r.nextInt(p.params().size());
            Param prm = p.params().get(i);
            long delta = 1 + r.nextInt(4);
            Param n = switch (r.nextInt(4)) {
                case 0 -> new Param(prm.name(), prm.min() - delta, prm.max());
                case 1 -> new Param(prm.name(), prm.min(), prm.max() + delta);
                case 2 -> new Param(prm.name(), Math.min(prm.max(), prm.min() + delta), prm.max());
                default -> new Param(prm.name(), prm.min(), Math.max(prm.min(), prm.max() - delta));
            };
            return Edits.withParams(p, set(p.params(), i, n));
        }
    },
    GROUP_SHAPE {
        Program apply(Program p, SplittableRandom r) {
            if (p.groups().isEmpty()) {
                return null;
            }
            int i = r.nextInt(p.groups().size());
            Group g = p.groups().get(i);
            Rect q = g.rect();
            Group n = switch (r.nextInt(3)) {
                case 0 -> new Group(g.name(), g.chip(), new Rect(q.x(), q.y(), Math.max(1, q.width() + (r.nextBoolean() ? 1 : -1)), q.height()), g.sender());
                case 1 -> new Group(g.name(), g.chip(), q, randomSite(p, r));
                default -> new Group(g.name(), (g.chip() + 1) % p.machine().chips(), q, g.sender());
            };
            return Edits.withGroups(p, set(p.groups(), i, n));
        }
    },
    BLOCK_DIM {
        Program apply(Program p, SplittableRandom r) {
            return patternEdit(p, r, (pat, rnd) -> Edits.withBlock(pat, Edits.changeDim(blockOf(pat), rnd)));
        }
    },
    BLOCK_RANK {
        Program apply(Program p, SplittableRandom r) {
            return patternEdit(p, r, (pat, rnd) -> Edits.withBlock(pat, Edits.changeRank(blockOf(pat), rnd)));
        }
    },
    ORIGIN_CONSTANT {
        Program apply(Program p, SplittableRandom r) {
            return patternEdit(p, r, (pat, rnd) -> {
                List<Offset> origin = pat.originOffsets();
                if (origin.isEmpty()) {
                    return null;
                }
                int a = rnd.nextInt(origin.size());
                Offset o = origin.get(a);
                long[] deltas = {1, -1, 2, -2, 1L << 40};
                return Edits.withOrigin(pat, set(origin, a, new Offset(o.constant() + deltas[rnd.nextInt(deltas.length)], o.terms())));
            });
        }
    },
    ORIGIN_TERM {
        Program apply(Program p, SplittableRandom r) {
            return patternEdit(p, r, (pat, rnd) -> {
                List<Offset> origin = pat.originOffsets();
                if (origin.isEmpty()) {
                    return null;
                }
                int a = rnd.nextInt(origin.size());
                Offset o = origin.get(a);
                List<Offset.Term> terms = new ArrayList<>(o.terms());
                String buffer = pick(p.buffers(), rnd).name();
                switch (rnd.nextInt(3)) {
                    case 0 -> terms.add(new Offset.Term.OfParam(1 + rnd.nextInt(2), pick(p.params(), rnd) == null ? "nope" : pick(p.params(), rnd).name()));
                    case 1 -> terms.add(new Offset.Term.OfBuffer(1, buffer));
                    default -> {
                        if (terms.isEmpty()) {
                            return null;
                        }
                        int k = rnd.nextInt(terms.size());
                        Offset.Term t = terms.get(k);
                        terms.set(k, switch (t) {
                            case Offset.Term.OfParam pt -> new Offset.Term.OfParam(pt.coefficient() + (rnd.nextBoolean() ? 1 : -2), pt.param());
                            case Offset.Term.OfBuffer bt -> new Offset.Term.OfBuffer(bt.coefficient(), buffer);
                        });
                    }
                }
                return Edits.withOrigin(pat, set(origin, a, new Offset(o.constant(), terms)));
            });
        }
    },
    STREAM_AXIS_OR_STRIDE {
        Program apply(Program p, SplittableRandom r) {
            return patternEdit(p, r, (pat, rnd) -> pat instanceof AccessPattern.Streamed s
                    ? (rnd.nextBoolean()
                            ? new AccessPattern.Streamed(s.origin(), s.block(), s.axis() + (rnd.nextBoolean() ? 1 : -1), s.stride())
                            : new AccessPattern.Streamed(s.origin(), s.block(), s.axis(), pick(List.of(s.stride() + 1, s.stride() - 1, s.stride() + 3, 0L, 1L << 62, Long.MAX_VALUE / 3), rnd)))
                    : null);
        }
    },
    INDEX_BUFFER {
        Program apply(Program p, SplittableRandom r) {
            return patternEdit(p, r, (pat, rnd) -> pat instanceof AccessPattern.Indirect ind
                    ? new AccessPattern.Indirect(pick(p.buffers(), rnd).name(), ind.origin(), ind.block())
                    : null);
        }
    },
    NUM_BLOCKS_OR_MULTICAST {
        Program apply(Program p, SplittableRandom r) {
            List<Integer> loads = stagesWhere(p, s -> s.kind() instanceof StageKind.Load);
            Integer i = pick(loads, r);
            if (i == null) {
                return null;
            }
            Stage s = p.stages().get(i);
            StageKind.Load l = (StageKind.Load) s.kind();
            StageKind.Load n = switch (r.nextInt(3)) {
                case 0 -> new StageKind.Load(l.tensor(), l.pattern(), Math.max(1, l.numBlocks() + (r.nextBoolean() ? 1 : -1)), l.multicast());
                case 1 -> new StageKind.Load(l.tensor(), l.pattern(), l.numBlocks(), l.multicast() == null && !p.groups().isEmpty() ? pick(p.groups(), r).name() : null);
                default -> new StageKind.Load(pick(p.tensors(), r).name(), l.pattern(), l.numBlocks(), l.multicast());
            };
            return withStage(p, i, withKind(s, n));
        }
    },
    STORE_SUBBLOCKS_OR_TENSOR {
        Program apply(Program p, SplittableRandom r) {
            Integer i = pick(stagesWhere(p, s -> s.kind() instanceof StageKind.Store), r);
            if (i == null) {
                return null;
            }
            Stage s = p.stages().get(i);
            StageKind.Store st = (StageKind.Store) s.kind();
            StageKind.Store n = switch (r.nextInt(3)) {
                case 0 -> new StageKind.Store(st.tensor(), st.pattern(), st.subRows() + 1, st.subCols());
                case 1 -> new StageKind.Store(st.tensor(), st.pattern(), st.subRows(), r.nextBoolean() ? st.subCols() + 1 : 2 * st.subCols());
                default -> new StageKind.Store(pick(p.tensors(), r).name(), st.pattern(), st.subRows(), st.subCols());
            };
            return withStage(p, i, withKind(s, n));
        }
    },
    RECV_GROUP {
        Program apply(Program p, SplittableRandom r) {
            Integer i = pick(stagesWhere(p, s -> s.kind() instanceof StageKind.Recv), r);
            if (i == null) {
                return null;
            }
            String g = r.nextBoolean() || p.groups().size() < 2 ? "no_such_group" : pick(p.groups(), r).name();
            return withStage(p, i, withKind(p.stages().get(i), new StageKind.Recv(g)));
        }
    },
    OP_PARAMETER {
        Program apply(Program p, SplittableRandom r) {
            Integer i = pick(stagesWhere(p, s -> s.kind() instanceof StageKind.Compute c && !(c.op() instanceof ComputeOp.Generic)), r);
            if (i == null) {
                return null;
            }
            Stage s = p.stages().get(i);
            ComputeOp op = ((StageKind.Compute) s.kind()).op();
            ComputeOp n = switch (op) {
                case ComputeOp.Reduce red -> r.nextBoolean()
                        ? new ComputeOp.Reduce(red.fn(), red.axis() + (r.nextBoolean() ? 1 : -1))
                        : new ComputeOp.Reduce(pick(List.of(ReduceFn.values()), r), red.axis());
                case ComputeOp.Transpose t -> {
                    List<Integer> perm = new ArrayList<>(t.perm());
                    if (perm.isEmpty() || r.nextInt(3) == 0) {
                        perm.add(perm.size());
                    } else if (perm.size() >= 2 && r.nextBoolean()) {
                        java.util.Collections.swap(perm, 0, perm.size() - 1);
                    } else {
                        perm.set(r.nextInt(perm.size()), r.nextInt(perm.size() + 1));
                    }
                    yield new ComputeOp.Transpose(perm);
                }
                case ComputeOp.Slice sl -> {
                    if (sl.starts().isEmpty()) {
                        yield new ComputeOp.Slice(List.of(0));
                    }
                    int a = r.nextInt(sl.starts().size());
                    yield new ComputeOp.Slice(set(sl.starts(), a, sl.starts().get(a) + (r.nextBoolean() ? 1 : -1)));
                }
                case ComputeOp.Concat c -> new ComputeOp.Concat(c.axis() + (r.nextBoolean() ? 1 : -1));
                case ComputeOp.MatMul m -> switch (r.nextInt(4)) {
                    case 0 -> new ComputeOp.MatMul(!m.transposeA(), m.transposeB(), m.bias(), m.spill());
                    case 1 -> new ComputeOp.MatMul(m.transposeA(), !m.transposeB(), m.bias(), m.spill());
                    case 2 -> new ComputeOp.MatMul(m.transposeA(), m.transposeB(), m.bias() == null ? pick(p.buffers(), r).name() : null, m.spill());
                    default -> new ComputeOp.MatMul(m.transposeA(), m.transposeB(), m.bias(), m.spill() == null ? pick(p.buffers(), r).name() : null);
                };
                case ComputeOp.Reshape rs -> pick(List.<ComputeOp>of(new ComputeOp.Generic(Expr.in(0)), new ComputeOp.Transpose(List.of(0)), new ComputeOp.Concat(0)), r);
                case ComputeOp.Generic g -> g;
            };
            return withStage(p, i, withKind(s, new StageKind.Compute(n)));
        }
    },
    EXPRESSION {
        Program apply(Program p, SplittableRandom r) {
            Integer i = pick(stagesWhere(p, s -> s.kind() instanceof StageKind.Scalar || s.kind() instanceof StageKind.AllReduce
                    || (s.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.Generic)), r);
            if (i == null) {
                return null;
            }
            Stage s = p.stages().get(i);
            StageKind n = switch (s.kind()) {
                case StageKind.Compute c -> new StageKind.Compute(new ComputeOp.Generic(ExprMutations.mutate(((ComputeOp.Generic) c.op()).expr(), r)));
                case StageKind.AllReduce a -> new StageKind.AllReduce(a.pool(), a.tensor(), new ComputeOp.Generic(ExprMutations.mutate(a.combine().expr(), r)));
                case StageKind.Scalar sc -> {
                    if (sc.body().results().isEmpty()) {
                        yield null;
                    }
                    int k = r.nextInt(sc.body().results().size());
                    yield new StageKind.Scalar(new ScalarBody(set(sc.body().results(), k, ExprMutations.mutate(sc.body().results().get(k), r))));
                }
                case StageKind.Load l -> l;
                case StageKind.Store st -> st;
                case StageKind.Recv rv -> rv;
            };
            return n == null ? null : withStage(p, i, withKind(s, n));
        }
    },
    PORT_RENAME {
        Program apply(Program p, SplittableRandom r) {
            return portEdit(p, r, (ports, rnd) -> ports.isEmpty() ? null : set(ports, rnd.nextInt(ports.size()), pick(p.buffers(), rnd).name()));
        }
    },
    /** A port set to another port of the same stage: the same buffer twice (two partials on one chip). */
    PORT_DUPLICATE {
        Program apply(Program p, SplittableRandom r) {
            Integer i = pick(stagesWhere(p, s -> s.ins().size() >= 2 || s.outs().size() >= 2), r);
            if (i == null) {
                return null;
            }
            Stage s = p.stages().get(i);
            boolean ins = s.ins().size() >= 2 && (s.outs().size() < 2 || r.nextBoolean());
            List<String> ports = ins ? s.ins() : s.outs();
            int k = r.nextInt(ports.size());
            List<String> n = set(ports, k, ports.get((k + 1 + r.nextInt(ports.size() - 1)) % ports.size()));
            return withStage(p, i, new Stage(s.id(), s.site(), ins ? n : s.ins(), ins ? s.outs() : n, s.kind()));
        }
    },
    /**
     * One extent changed in every shape equal to a chosen buffer's (buffers, tensors, pattern
     * blocks), so that a Load/compute/Store chain usually stays consistent and the change reaches
     * the ops in between: an empty axis, an extent of 1, a larger one.
     */
    RESIZE_CONSISTENTLY {
        Program apply(Program p, SplittableRandom r) {
            BufferDecl b = pick(p.buffers(), r);
            if (b.shape().rank() == 0) {
                return null;
            }
            int axis = r.nextInt(b.shape().rank());
            int d = b.shape().dim(axis);
            Shape from = b.shape();
            Shape to = from.withDim(axis, pick(List.of(0, 1, d + 1, 2 * d), r));
            java.util.function.UnaryOperator<Shape> f = s -> s.equals(from) ? to : s;
            List<Stage> stages = p.stages().stream().map(s -> {
                AccessPattern pat = patternOf(s.kind());
                return pat == null ? s : withKind(s, Edits.withPattern(s.kind(), Edits.withBlock(pat, f.apply(blockOf(pat)))));
            }).toList();
            return new Program(p.name(), p.machine(), p.params(),
                    p.tensors().stream().map(t -> new TensorDecl(t.name(), t.dtype(), f.apply(t.shape()), t.chip(), t.role())).toList(),
                    p.buffers().stream().map(x -> Edits.withShape(x, f.apply(x.shape()))).toList(),
                    p.groups(), stages);
        }
    },
    PORT_SWAP {
        Program apply(Program p, SplittableRandom r) {
            return portEdit(p, r, (ports, rnd) -> {
                if (ports.size() < 2) {
                    return null;
                }
                List<String> out = new ArrayList<>(ports);
                java.util.Collections.swap(out, 0, 1 + rnd.nextInt(ports.size() - 1));
                return out;
            });
        }
    },
    PORT_ADD_OR_DROP {
        Program apply(Program p, SplittableRandom r) {
            return portEdit(p, r, (ports, rnd) -> {
                List<String> out = new ArrayList<>(ports);
                if (!out.isEmpty() && rnd.nextBoolean()) {
                    out.remove(rnd.nextInt(out.size()));
                } else {
                    out.add(rnd.nextInt(out.size() + 1), pick(p.buffers(), rnd).name());
                }
                return out;
            });
        }
    },
    STAGE_SITE {
        Program apply(Program p, SplittableRandom r) {
            int i = r.nextInt(p.stages().size());
            Stage s = p.stages().get(i);
            return withStage(p, i, new Stage(s.id(), randomSite(p, r), s.ins(), s.outs(), s.kind()));
        }
    },
    STAGE_DROP_OR_SWAP {
        Program apply(Program p, SplittableRandom r) {
            List<Stage> stages = new ArrayList<>(p.stages());
            int i = r.nextInt(stages.size());
            if (r.nextBoolean() || stages.size() < 2) {
                stages.remove(i);
            } else {
                int j = i == stages.size() - 1 ? i - 1 : i + 1;
                java.util.Collections.swap(stages, i, j);
            }
            return p.withStages(stages);
        }
    };

    abstract Program apply(Program p, SplittableRandom r);

    interface PatternEdit {
        AccessPattern apply(AccessPattern p, SplittableRandom r);
    }

    interface PortEdit {
        List<String> apply(List<String> ports, SplittableRandom r);
    }

    private static Program patternEdit(Program p, SplittableRandom r, PatternEdit edit) {
        Integer i = pick(stagesWhere(p, s -> patternOf(s.kind()) != null), r);
        if (i == null) {
            return null;
        }
        Stage s = p.stages().get(i);
        AccessPattern n = edit.apply(patternOf(s.kind()), r);
        return n == null ? null : withStage(p, i, withKind(s, Edits.withPattern(s.kind(), n)));
    }

    private static Program portEdit(Program p, SplittableRandom r, PortEdit edit) {
        int i = r.nextInt(p.stages().size());
        Stage s = p.stages().get(i);
        boolean ins = r.nextBoolean();
        List<String> n = edit.apply(ins ? s.ins() : s.outs(), r);
        if (n == null) {
            return null;
        }
        return withStage(p, i, new Stage(s.id(), s.site(), ins ? n : s.ins(), ins ? s.outs() : n, s.kind()));
    }

    /** A core of the machine, or (one time in eight) a core just off it. */
    private static Site randomSite(Program p, SplittableRandom r) {
        var m = p.machine();
        if (r.nextInt(8) == 0) {
            return Site.of(m.chips(), 0, 0);
        }
        return Site.of(r.nextInt(m.chips()), r.nextInt(m.width()), r.nextInt(m.height()));
    }
}
