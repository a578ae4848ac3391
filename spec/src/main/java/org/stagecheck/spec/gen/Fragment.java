package org.stagecheck.spec.gen;

import java.util.function.Consumer;
import java.util.function.Predicate;
import org.stagecheck.spec.ir.DType;

/**
 * The fragments a generated program is made of. One round of all of them covers every stage kind,
 * access pattern and compute op (brief, "Stages"):
 * <ul>
 *   <li>{@link #KV_CACHE_ROW}: Load/Store of a Block at a parameter-dependent row, Generic;</li>
 *   <li>{@link #STREAMED_MATMUL}: Streamed loads (contiguous or interleaved), MatMul with bias and spill;</li>
 *   <li>{@link #INDIRECT_GATHER}: Indirect load through an i32 index buffer with a parameter offset, Reduce;</li>
 *   <li>{@link #LAYOUT}: Concat, Transpose, Slice, Reshape;</li>
 *   <li>{@link #SCALAR_OFFSET}: Scalar stages feeding a buffer offset ({@code @buffer});</li>
 *   <li>{@link #ELEMENTWISE}: a broadcasting Generic over mixed dtypes;</li>
 *   <li>{@link #MULTICAST}: multicast Load and one Recv per receiver;</li>
 *   <li>{@link #ALL_REDUCE}: partial matmuls on distinct chips and an AllReduce(SUM).</li>
 * </ul>
 * Under a {@link GenSpace} that forbids some kinds or dtypes, a fragment is drawn only when it can
 * be written inside it ({@link #fits}); some leave out an optional stage (a Generic, a Reduce, a
 * layout op) instead.
 */
enum Fragment {
    KV_CACHE_ROW(LocalFragments::kvCacheRow, g -> true),
    STREAMED_MATMUL(LocalFragments::streamedMatMul, g -> g.allows(KindName.MAT_MUL)),
    INDIRECT_GATHER(LocalFragments::indirectGather, g -> g.allows(DType.I32)),
    LAYOUT(LocalFragments::layout, g -> g.allows(KindName.CONCAT) || g.allows(KindName.TRANSPOSE)
            || g.allows(KindName.SLICE) || g.allows(KindName.RESHAPE)),
    SCALAR_OFFSET(LocalFragments::scalarOffsetLoad, g -> g.allows(KindName.SCALAR) && g.allows(DType.I32)),
    ELEMENTWISE(LocalFragments::elementwise, g -> g.allows(KindName.GENERIC)),
    MULTICAST(CrossCoreFragments::multicast, g -> g.space.multicast() && g.allows(KindName.RECV) && g.width * g.height >= 2),
    ALL_REDUCE(CrossCoreFragments::allReduce, g -> g.space.splits() && g.space.tpDegrees().stream().anyMatch(d -> d <= g.chips));

    private final Consumer<GenContext> emit;
    private final Predicate<GenContext> fits;

    Fragment(Consumer<GenContext> emit, Predicate<GenContext> fits) {
        this.emit = emit;
        this.fits = fits;
    }

    /** Whether the fragment can be written on this machine with only what the space allows (every kind needs LOAD and STORE, which it always allows). */
    boolean fits(GenContext g) {
        return fits.test(g);
    }

    void emit(GenContext g) {
        emit.accept(g);
    }
}
