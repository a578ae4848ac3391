package org.stagecheck.spec.gen;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * The programs {@link RandomPrograms#draw} may produce: the sizes (machines of {@code minChips..maxChips}
 * chips of up to {@code maxGrid x maxGrid} cores, {@code minStages..maxStages} stages, dimensions
 * up to {@code maxDim}) and what may appear in them (the stage kinds and compute ops, the dtypes of
 * tensors, buffers and casts, multicast groups, tensor-parallel splits over the given degrees).
 * {@link #problem} tells whether any program, generated or not, stays inside.
 *
 * @param kinds     the stage kinds and ops that may appear; {@code LOAD} and {@code STORE} at least
 *                  (every generated fragment reads fresh tensors and writes its result out)
 * @param dtypes    the dtypes that may appear; at least one floating type. Fragments that need
 *                  i32 (index buffers, scalar offsets, arg-max) appear only with {@code I32}; a
 *                  matmul accumulates into an f32 spill only with {@code F32}
 * @param multicast whether multicast groups (a multicast Load and its Recvs) may appear
 * @param tpDegrees the numbers of chips a tensor-parallel split (partial matmuls, an AllReduce,
 *                  the certificate's shards) may span; empty for no splits
 */
public record GenSpace(int minChips, int maxChips, int maxGrid, int minStages, int maxStages, int maxDim,
                       Set<KindName> kinds, Set<DType> dtypes, boolean multicast, Set<Integer> tpDegrees) {
    public GenSpace {
        if (minChips < 1 || maxChips < minChips) {
            throw new IllegalArgumentException("chips: 1 <= minChips <= maxChips, not " + minChips + ".." + maxChips);
        }
        if (maxGrid < 1 || minStages < 0 || maxStages < minStages || maxDim < 2) {
            throw new IllegalArgumentException("sizes: maxGrid >= 1, 0 <= minStages <= maxStages, maxDim >= 2, not grid " + maxGrid
                    + ", stages " + minStages + ".." + maxStages + ", maxDim " + maxDim);
        }
        kinds = Collections.unmodifiableSet(kinds.isEmpty() ? EnumSet.noneOf(KindName.class) : EnumSet.copyOf(kinds));
        dtypes = Collections.unmodifiableSet(dtypes.isEmpty() ? EnumSet.noneOf(DType.class) : EnumSet.copyOf(dtypes));
        tpDegrees = Collections.unmodifiableSet(new TreeSet<>(tpDegrees));
        if (!kinds.contains(KindName.LOAD) || !kinds.contains(KindName.STORE)) {
            throw new IllegalArgumentException("kinds must include LOAD and STORE (every generated fragment loads its inputs and stores its result), not " + kinds);
        }
        if (dtypes.stream().noneMatch(DType::isFloating)) {
            throw new IllegalArgumentException("dtypes must include a floating type, not " + dtypes);
        }
        for (int d : tpDegrees) {
            if (d < 2) {
                throw new IllegalArgumentException("a tensor-parallel degree is at least 2, not " + d);
            }
        }
    }

    /** Everything: 2-3 chips of up to 3x3 cores, up to 80 stages, dimensions up to 6, every kind and dtype, multicast, splits over 2-4 chips. */
    public static GenSpace everything() {
        return new GenSpace(2, 3, 3, 0, 80, 6, EnumSet.allOf(KindName.class), EnumSet.allOf(DType.class), true, Set.of(2, 3, 4));
    }

    public GenSpace withChips(int min, int max) {
        return new GenSpace(min, max, maxGrid, minStages, maxStages, maxDim, kinds, dtypes, multicast, tpDegrees);
    }

    public GenSpace withGrid(int max) {
        return new GenSpace(minChips, maxChips, max, minStages, maxStages, maxDim, kinds, dtypes, multicast, tpDegrees);
    }

    public GenSpace withStages(int min, int max) {
        return new GenSpace(minChips, maxChips, maxGrid, min, max, maxDim, kinds, dtypes, multicast, tpDegrees);
    }

    public GenSpace withMaxDim(int max) {
        return new GenSpace(minChips, maxChips, maxGrid, minStages, maxStages, max, kinds, dtypes, multicast, tpDegrees);
    }

    public GenSpace withKinds(Set<KindName> allowed) {
        return new GenSpace(minChips, maxChips, maxGrid, minStages, maxStages, maxDim, allowed, dtypes, multicast, tpDegrees);
    }

    public GenSpace withDtypes(Set<DType> allowed) {
        return new GenSpace(minChips, maxChips, maxGrid, minStages, maxStages, maxDim, kinds, allowed, multicast, tpDegrees);
    }

    public GenSpace withMulticast(boolean allowed) {
        return new GenSpace(minChips, maxChips, maxGrid, minStages, maxStages, maxDim, kinds, dtypes, allowed, tpDegrees);
    }

    /** Splits over these numbers of chips; none for no splits. */
    public GenSpace withTpDegrees(Set<Integer> degrees) {
        return new GenSpace(minChips, maxChips, maxGrid, minStages, maxStages, maxDim, kinds, dtypes, multicast, degrees);
    }

    public boolean splits() {
        return !tpDegrees.isEmpty() && kinds.contains(KindName.ALL_REDUCE) && kinds.contains(KindName.MAT_MUL);
    }

    /** The floating dtypes allowed, in {@link DType} order. */
    List<DType> floats() {
        return dtypes.stream().filter(DType::isFloating).toList();
    }

    /**
     * Why {@code p} is outside what this space allows (chips, kinds, dtypes, multicast, splits), or
     * null when it is inside. Sizes other than the chip count are not judged: a real program keeps
     * its own stage count, grid and dimensions.
     */
    public String problem(Program p) {
        int chips = p.machine().chips();
        if (chips < minChips || chips > maxChips) {
            return "it has " + chips + " chips, not " + minChips + ".." + maxChips;
        }
        if (!multicast && !p.groups().isEmpty()) {
            return "it declares multicast group '" + p.groups().getFirst().name() + "'";
        }
        for (TensorDecl t : p.tensors()) {
            if (!dtypes.contains(t.dtype())) {
                return "tensor '" + t.name() + "' is " + t.dtype();
            }
        }
        for (BufferDecl b : p.buffers()) {
            if (!dtypes.contains(b.dtype())) {
                return "buffer '" + b.name() + "' is " + b.dtype();
            }
        }
        for (Stage s : p.stages()) {
            String why = problem(s);
            if (why != null) {
                return "stage '" + s.id() + "': " + why;
            }
        }
        return null;
    }

    private String problem(Stage s) {
        KindName kind = KindName.of(s);
        if (!kinds.contains(kind)) {
            return "its kind " + kind + " is not allowed";
        }
        List<Expr> exprs = new ArrayList<>();
        switch (s.kind()) {
            case StageKind.Load l -> {
                if (!multicast && l.multicast() != null) {
                    return "it multicasts";
                }
                if (l.pattern() instanceof AccessPattern.Indirect && !dtypes.contains(DType.I32)) {
                    return "its index buffer is i32";
                }
            }
            case StageKind.AllReduce a -> {
                if (!tpDegrees.contains(s.ins().size())) {
                    return "it reduces over " + s.ins().size() + " chips, not one of " + tpDegrees;
                }
                exprs.add(a.combine().expr());
            }
            case StageKind.Compute c -> {
                if (c.op() instanceof ComputeOp.Generic g) {
                    exprs.add(g.expr());
                }
            }
            case StageKind.Scalar sc -> exprs.addAll(sc.body().results());
            case StageKind.Store st -> { }
            case StageKind.Recv r -> { }
        }
        for (Expr e : exprs) {
            DType cast = firstCastOutside(e);
            if (cast != null) {
                return "it casts to " + cast;
            }
        }
        return null;
    }

    private DType firstCastOutside(Expr e) {
        return switch (e) {
            case Expr.Cast c -> dtypes.contains(c.dtype()) ? firstCastOutside(c.arg()) : c.dtype();
            case Expr.Apply a -> a.args().stream().map(this::firstCastOutside).filter(java.util.Objects::nonNull).findFirst().orElse(null);
            case Expr.In in -> null;
            case Expr.FloatConst f -> null;
            case Expr.IntConst i -> null;
            case Expr.ParamRef p -> null;
            case Expr.Index ix -> null;
        };
    }
}
