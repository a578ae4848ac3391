package org.stagecheck.spec.gen;

import java.util.function.Consumer;

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
 */
enum Fragment {
    KV_CACHE_ROW(LocalFragments::kvCacheRow),
    STREAMED_MATMUL(LocalFragments::streamedMatMul),
    INDIRECT_GATHER(LocalFragments::indirectGather),
    LAYOUT(LocalFragments::layout),
    SCALAR_OFFSET(LocalFragments::scalarOffsetLoad),
    ELEMENTWISE(LocalFragments::elementwise),
    MULTICAST(CrossCoreFragments::multicast),
    ALL_REDUCE(CrossCoreFragments::allReduce);

    private final Consumer<GenContext> emit;

    Fragment(Consumer<GenContext> emit) {
        this.emit = emit;
    }

    void emit(GenContext g) {
        emit.accept(g);
    }
}
