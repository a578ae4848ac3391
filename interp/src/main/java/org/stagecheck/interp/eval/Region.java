package org.stagecheck.interp.eval;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.rules.Rule;

/**
 * The elements an access pattern selects (brief, "Stages", access patterns), resolved for this
 * run's parameter and buffer values: a list of pieces, each a block of {@code blockShape} at
 * {@code tensorOrigin} in the tensor and at {@code bufferOrigin} in the buffer of
 * {@code bufferShape}. Pieces are in block order (streamed: k ascending; indirect: i ascending),
 * which is also the order in which a Store writes them.
 */
record Region(int[] blockShape, int[] bufferShape, List<Piece> pieces) {

    record Piece(long[] tensorOrigin, int[] bufferOrigin) {}

    /**
     * Resolves {@code pattern} over {@code tensor}. {@code numBlocks} is the Load's count; a Store
     * passes -1 and the count follows from {@code storeBufferShape} (streamed only).
     */
    static Region resolve(AccessPattern pattern, int numBlocks, TensorDecl tensor, Shape storeBufferShape,
                          RunState state) throws Fault {
        int rank = tensor.shape().rank();
        return switch (pattern) {
            case AccessPattern.Block b -> {
                checkRank(b.origin().size(), b.block().rank(), rank, "");
                if (numBlocks > 1) {
                    throw new Fault(Rule.NUM_BLOCKS, "kind/numBlocks", null,
                            "a Block pattern reads exactly one block, not " + numBlocks + ".");
                }
                long[] origin = origins(b.origin(), state);
                Region r = new Region(b.block().toArray(), b.block().toArray(),
                        List.of(new Piece(origin, new int[rank])));
                r.checkBounds(tensor, 0);
                yield r;
            }
            case AccessPattern.Streamed s -> {
                checkRank(s.origin().size(), s.block().rank(), rank, "");
                if (s.axis() < 0 || s.axis() >= rank) {
                    throw new Fault(Rule.PATTERN_AXIS, "kind/pattern/axis", null,
                            "streamed axis " + s.axis() + " is outside the tensor's rank " + rank + ".");
                }
                int[] block = s.block().toArray();
                int count = numBlocks;
                if (count < 0) {
                    int extent = storeBufferShape.rank() == rank ? storeBufferShape.dim(s.axis()) : -1;
                    if (block[s.axis()] == 0 || extent < 0 || extent % block[s.axis()] != 0) {
                        throw new Fault(Rule.STORE_SHAPE, "kind/pattern", null, "the stored buffer " + storeBufferShape
                                + " is not a whole number of blocks " + s.block() + " along axis " + s.axis() + ".");
                    }
                    count = extent / block[s.axis()];
                }
                long[] origin = origins(s.origin(), state);
                int[] bufferShape = block.clone();
                long extent = (long) block[s.axis()] * count;
                if (extent > Integer.MAX_VALUE) {
                    // numBlocks x block cannot be one buffer axis (nor fit any buffer): say so, not an int overflow
                    throw new Fault(Rule.LOAD_SHAPE, "kind/numBlocks", null, count + " blocks of " + s.block() + " along axis "
                            + s.axis() + " make an axis of " + extent + " elements, more than any buffer holds.");
                }
                bufferShape[s.axis()] = (int) extent;
                List<Piece> pieces = new ArrayList<>(count);
                for (int k = 0; k < count; k++) {
                    long[] o = origin.clone();
                    o[s.axis()] = streamedCorner(origin[s.axis()], k, s.stride(), s.axis());
                    int[] bo = new int[rank];
                    bo[s.axis()] = k * block[s.axis()];
                    pieces.add(new Piece(o, bo));
                }
                Region r = new Region(block, bufferShape, pieces);
                r.checkBounds(tensor, 0);
                yield r;
            }
            case AccessPattern.Indirect ind -> {
                if (rank < 1) {
                    throw new Fault(Rule.PATTERN_RANK, "kind/pattern", null, "an indirect pattern needs a tensor of rank at least 1.");
                }
                checkRank(ind.origin().size() + 1, ind.block().rank() + 1, rank, " (after axis 0)");
                Tensor idx = state.read(ind.indexBuffer());
                if (idx.dtype() != DType.I32) {
                    throw new Fault(Rule.INDEX_BUFFER_TYPE, "kind/pattern/indexBuffer", ind.indexBuffer(),
                            "index buffer '" + ind.indexBuffer() + "' is " + idx.dtype() + ", not i32.");
                }
                long[] rest = origins(ind.origin(), state);
                int n = (int) idx.size();
                int[] block = new int[rank];
                block[0] = 1;
                int[] bufferShape = new int[rank];
                bufferShape[0] = n;
                for (int a = 1; a < rank; a++) {
                    block[a] = ind.block().dim(a - 1);
                    bufferShape[a] = block[a];
                }
                List<Piece> pieces = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    int row = idx.getInt(i);
                    if (row < 0 || row >= tensor.shape().dim(0)) {
                        throw new Fault(FaultCode.INDEX_OUT_OF_RANGE, "kind/pattern/indexBuffer", ind.indexBuffer(),
                                "index buffer '" + ind.indexBuffer() + "' element " + i + " is " + row
                                        + ", outside [0, " + tensor.shape().dim(0) + ") of tensor '" + tensor.name() + "' axis 0.");
                    }
                    long[] o = new long[rank];
                    o[0] = row;
                    System.arraycopy(rest, 0, o, 1, rank - 1);
                    int[] bo = new int[rank];
                    bo[0] = i;
                    pieces.add(new Piece(o, bo));
                }
                Region r = new Region(block, bufferShape, pieces);
                r.checkBounds(tensor, 1);
                yield r;
            }
        };
    }

    /**
     * {@link #resolve}, done once for the running stage when the pattern's offsets are constants
     * (no parameter or buffer term): later runs of a prepared program reuse the checked region.
     */
    static Region resolvePlanned(AccessPattern pattern, int numBlocks, TensorDecl tensor, Shape storeBufferShape,
                                 RunState state) throws Fault {
        Region planned = state.plannedRegion();
        if (planned != null) {
            return planned;
        }
        Region r = resolve(pattern, numBlocks, tensor, storeBufferShape, state);
        boolean constant = switch (pattern) {
            case AccessPattern.Block b -> constant(b.origin());
            case AccessPattern.Streamed s -> constant(s.origin());
            case AccessPattern.Indirect ind -> false;
        };
        if (constant) {
            state.planRegion(r);
        }
        return r;
    }

    private static boolean constant(List<Offset> offsets) {
        for (Offset o : offsets) {
            if (!o.terms().isEmpty()) {
                return false;
            }
        }
        return true;
    }

    private static void checkRank(int origins, int blockRank, int rank, String what) throws Fault {
        if (origins != rank || blockRank != rank) {
            throw new Fault(Rule.PATTERN_RANK, "kind/pattern", null, "the pattern has " + origins + " origin offsets and a block of rank "
                    + blockRank + " but the tensor has rank " + rank + what + ".");
        }
    }

    private static long[] origins(List<Offset> offsets, RunState state) throws Fault {
        long[] out = new long[offsets.size()];
        for (int a = 0; a < out.length; a++) {
            out[a] = Offsets.eval(offsets.get(a), a, state);
        }
        return out;
    }

    /** Block {@code k}'s corner on the streamed axis, {@code origin + k * stride}, exactly (overflow is a fault). */
    private static long streamedCorner(long origin, int k, long stride, int axis) throws Fault {
        try {
            return Math.addExact(origin, Math.multiplyExact(k, stride));
        } catch (ArithmeticException e) {
            throw new Fault(FaultCode.OFFSET_OVERFLOW, "kind/pattern/stride", null, "block " + k + " of the streamed pattern lies at "
                    + origin + " + " + k + " * " + stride + " on axis " + axis + ", which overflows 64 bits.");
        }
    }

    /**
     * Every piece inside the tensor. Written as {@code lo > dim - extent} rather than {@code lo + extent > dim}:
     * an origin near 2^63 would wrap the sum negative and pass, and the copy would then read or write
     * elements the pattern never named.
     *
     * @param originBase the first tensor axis that has an origin offset (1 for Indirect, whose axis 0 is the index)
     */
    private void checkBounds(TensorDecl tensor, int originBase) throws Fault {
        int[] dims = tensor.shape().toArray();
        for (Piece p : pieces) {
            for (int a = originBase; a < dims.length; a++) {
                long lo = p.tensorOrigin()[a];
                if (lo < 0 || lo > (long) dims[a] - blockShape[a]) {
                    String hi = lo <= Long.MAX_VALUE - blockShape[a] ? Long.toString(lo + blockShape[a]) : lo + " + " + blockShape[a];
                    throw new Fault(Rule.BLOCK_OUT_OF_BOUNDS, "kind/pattern/origin/" + (a - originBase), null,
                            "the block at " + Arrays.toString(p.tensorOrigin()) + " of shape " + Arrays.toString(blockShape)
                                    + " covers [" + lo + ", " + hi + ") on axis " + a + ", past tensor '"
                                    + tensor.name() + "' of shape " + tensor.shape() + ".");
                }
            }
        }
    }

    /** Whether the region is the whole tensor in its own layout (one piece at the origin). */
    boolean isWhole(Shape tensorShape) {
        if (pieces.size() != 1 || blockShape.length != tensorShape.rank() || !Arrays.equals(bufferShape, blockShape)) {
            return false;
        }
        for (int a = 0; a < blockShape.length; a++) {
            if (blockShape[a] != tensorShape.dim(a)) {
                return false;
            }
        }
        for (long o : pieces.getFirst().tensorOrigin()) {
            if (o != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * This region of {@code t} as a {@link BlockView} with value shape {@code shape}, or null when
     * it is not one block in the tensor's layout whose axes before the last two have extent 1
     * (so that it is runs of equal length at a fixed distance).
     */
    BlockView asView(Tensor t, Shape shape) {
        int rank = blockShape.length;
        if (pieces.size() != 1 || rank == 0 || !Arrays.equals(blockShape, bufferShape)) {
            return null;
        }
        for (int a = 0; a < rank - 2; a++) {
            if (blockShape[a] != 1) {
                return null;
            }
        }
        // the flat offset of the origin, row-major, strides computed from the last axis inward
        Shape ts = t.shape();
        long offset = 0;
        long stride = 1;
        long[] origin = pieces.getFirst().tensorOrigin();
        for (int a = rank - 1; a >= 0; a--) {
            offset += origin[a] * stride;
            stride *= ts.dim(a);
        }
        int rows = rank >= 2 ? blockShape[rank - 2] : 1;
        int cols = blockShape[rank - 1];
        int ld = rank >= 2 ? ts.dim(rank - 1) : cols;
        return new BlockView(t, (int) offset, rows, cols, ld, shape);
    }

    long bufferElements() {
        long n = 1;
        for (int d : bufferShape) {
            n *= d;
        }
        return n;
    }

    /** Copies every piece from tensor {@code t} into buffer value {@code buf} (shape {@link #bufferShape}). */
    void gather(Tensor t, Tensor buf) {
        forEachRun(t.shape(), (tPos, bPos, len) -> Copy.copy(t, tPos, buf, bPos, len));
    }

    /** Copies every piece from buffer value {@code buf} into tensor {@code t}, in piece order. */
    void scatter(Tensor buf, Tensor t) {
        forEachRun(t.shape(), (tPos, bPos, len) -> Copy.copy(buf, bPos, t, tPos, len));
    }

    private static long[] strides(int[] dims) {
        long[] s = new long[dims.length];
        long acc = 1;
        for (int i = dims.length - 1; i >= 0; i--) {
            s[i] = acc;
            acc *= dims[i];
        }
        return s;
    }

    private interface RunConsumer {
        void run(int tensorPos, int bufferPos, int length);
    }

    /** Visits each piece as runs along the last axis, in row-major order within the piece. */
    private void forEachRun(Shape tensorShape, RunConsumer c) {
        int rank = blockShape.length;
        long[] ts = tensorShape.strides();
        long[] bs = strides(bufferShape);
        int runLen = rank == 0 ? 1 : blockShape[rank - 1];
        for (int d : blockShape) {
            if (d == 0) {
                return;
            }
        }
        int[] idx = new int[Math.max(rank - 1, 0)];
        for (int pi = 0; pi < pieces.size(); pi++) {
            Piece p = pieces.get(pi);
            Arrays.fill(idx, 0);
            while (true) {
                long tPos = 0;
                long bPos = 0;
                for (int a = 0; a < rank; a++) {
                    int i = a < rank - 1 ? idx[a] : 0;
                    tPos += (p.tensorOrigin()[a] + i) * ts[a];
                    bPos += (long) (p.bufferOrigin()[a] + i) * bs[a];
                }
                c.run((int) tPos, (int) bPos, runLen);
                int a = rank - 2;
                while (a >= 0 && ++idx[a] == blockShape[a]) {
                    idx[a] = 0;
                    a--;
                }
                if (a < 0) {
                    break;
                }
            }
        }
    }
}
