package org.stagecheck.interp.eval;

import java.util.Arrays;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;

/**
 * {@code Compute(MatMul)} (brief, "Stages"; docs/semantics.md, "MatMul"): {@code out = op(A) x
 * op(B) (+ bias)} with A = ins[0] {@code [..., M, K]} ({@code [..., K, M]} when transposed), B =
 * ins[1] {@code [..., K, N]} ({@code [..., N, K]}), B either with A's batch axes or rank 2 and
 * shared by every batch. Each output element's accumulator starts at the spill's value (or +0),
 * takes {@code acc = fma(a, b, acc)} for k ascending in f32 (double in float64 mode, wrapping i32
 * multiply-add for i32), is written back to the spill, then the bias is added once in f32 and the
 * sum rounded once to the output dtype. A spill never written by an earlier stage reads as +0.
 */
final class MatMulEval {
    private MatMulEval() {
    }

    static void run(Stage st, ComputeOp.MatMul mm, RunState s) throws Fault {
        Tensor a = s.read(Ports.in(st, 0));
        // a weight block a Load left in place is multiplied there (f32 mode; B rank 2), else B is read as usual
        BlockView bView = s.f64() ? null : s.viewOrNull(Ports.in(st, 1));
        int bLd = bView == null || !bView.source().dtype().isFloating() ? -1 : bView.matrixLd();
        Tensor b = bLd >= 0 ? bView.source() : s.read(Ports.in(st, 1));
        Shape as = a.shape();
        Shape bs = bLd >= 0 ? bView.shape() : b.shape();
        if (as.rank() < 2 || bs.rank() < 2) {
            throw new Fault(FaultCode.MATMUL_SHAPE, "ins", null, "matmul operands need rank at least 2, not " + as + " and " + bs + ".");
        }
        int m = mm.transposeA() ? as.dim(as.rank() - 1) : as.dim(as.rank() - 2);
        int k = mm.transposeA() ? as.dim(as.rank() - 2) : as.dim(as.rank() - 1);
        int kb = mm.transposeB() ? bs.dim(bs.rank() - 1) : bs.dim(bs.rank() - 2);
        int n = mm.transposeB() ? bs.dim(bs.rank() - 2) : bs.dim(bs.rank() - 1);
        int[] batchA = batchAxes(as);
        int[] batchB = batchAxes(bs);
        if (k != kb || (batchB.length > 0 && !Arrays.equals(batchA, batchB))) {
            throw new Fault(FaultCode.MATMUL_SHAPE, "ins", null, "cannot multiply " + as + (mm.transposeA() ? "^T" : "") + " by "
                    + bs + (mm.transposeB() ? "^T" : "") + ".");
        }
        int[] outDims = Arrays.copyOf(batchA, batchA.length + 2);
        outDims[batchA.length] = m;
        outDims[batchA.length + 1] = n;
        BufferDecl od = s.bufferDecl(Ports.out(st, 0));
        // the declared shape itself when it is the product's (then every shape below is that one object)
        Shape outShape = ShapeCache.sameDims(od.shape(), outDims) ? od.shape() : Shape.of(outDims);
        if (outShape != od.shape()) {
            throw new Fault(FaultCode.MATMUL_SHAPE, "outs/0", od.name(), "the product is " + outShape + " but buffer '" + od.name()
                    + "' is " + od.shape() + ".");
        }
        boolean ints = a.dtype() == DType.I32;
        if (ints != (b.dtype() == DType.I32)) {
            throw new Fault(FaultCode.MATMUL_DTYPE, "ins", null, "matmul operands must be both floating or both i32, not "
                    + a.dtype() + " and " + b.dtype() + ".");
        }
        int batches = 1;
        for (int d : batchA) {
            batches *= d;
        }
        int total = batches * m * n;
        int[] biasIndex = null;
        Tensor bias = null;
        if (mm.bias() != null) {
            bias = s.read(mm.bias());
            biasIndex = s.shapes().broadcast(bias.shape(), outShape, "bias '" + mm.bias() + "'").source();
        }
        Tensor spill = null;
        if (mm.spill() != null) {
            BufferDecl sd = s.bufferDecl(mm.spill());
            if (ints || sd.dtype() != DType.F32 || !sd.shape().equals(outShape)) {
                throw new Fault(FaultCode.SPILL_DECL, "kind/op/spill", mm.spill(), "spill '" + mm.spill() + "' must be an f32 buffer of the output's shape "
                        + outShape + " for a floating matmul, not " + sd.dtype() + " " + sd.shape() + ".");
            }
            spill = s.readOrNull(mm.spill());
        }
        if (ints) {
            intMatMul(st, mm, s, a, b, m, k, n, batches, batchB.length > 0, bias, biasIndex, od, outShape);
        } else if (s.f64()) {
            double[] acc = spill == null ? new double[total] : Values.doubles(spill).clone();
            double[] av = Values.doubles(a);
            double[] bv = Values.doubles(b);
            for (int p = 0; p < batches; p++) {
                int aOff = p * m * k;
                int bOff = batchB.length > 0 ? p * k * n : 0;
                int cOff = p * m * n;
                for (int i = 0; i < m; i++) {
                    for (int kk = 0; kk < k; kk++) {
                        double x = mm.transposeA() ? av[aOff + kk * m + i] : av[aOff + i * k + kk];
                        for (int j = 0; j < n; j++) {
                            double y = mm.transposeB() ? bv[bOff + j * k + kk] : bv[bOff + kk * n + j];
                            acc[cOff + i * n + j] = Math.fma(x, y, acc[cOff + i * n + j]);
                        }
                    }
                }
            }
            if (mm.spill() != null) {
                s.write(mm.spill(), Tensor.wrapDoubles(DType.F32, outShape, Values.canonicalNaNs(acc.clone(), total)));
            }
            if (bias != null) {
                for (int e = 0; e < total; e++) {
                    acc[e] += bias.getDouble(biasIndex[e]);
                }
            }
            s.write(od.name(), Values.ofDoubles(od.dtype(), outShape, acc));
        } else {
            // the accumulator is the output value when the output is f32: storage the run may keep (its arena)
            Tensor accTensor = s.output(DType.F32, od.shape());
            float[] acc = accTensor.rawFloats();
            if (spill == null) {
                Arrays.fill(acc, 0f);
            } else {
                System.arraycopy(Values.floats(spill), 0, acc, 0, total);
            }
            float[] av = Values.floats(a);
            if (batches == 1 && !mm.transposeA()) {
                // one product with A as it lies: the kernel reads A and accumulates into acc directly
                multiplyInto(av, b, bView, bLd, mm.transposeB(), acc, m, k, n, s);
            }
            float[] chunk = batches == 1 && !mm.transposeA() ? null : new float[m * n];
            for (int p = 0; chunk != null && p < batches; p++) {
                float[] ap = new float[m * k];
                int aOff = p * m * k;
                if (mm.transposeA()) {
                    for (int kk = 0; kk < k; kk++) {
                        for (int i = 0; i < m; i++) {
                            ap[i * k + kk] = av[aOff + kk * m + i];
                        }
                    }
                } else {
                    System.arraycopy(av, aOff, ap, 0, m * k);
                }
                System.arraycopy(acc, p * m * n, chunk, 0, m * n);
                boolean vector = MatMulKernel.vectorFor((long) m * k * n, s.warm());
                if (bLd >= 0) {
                    MatMulKernel.multiply(ap, b, bView.offset(), bLd, mm.transposeB(), chunk, m, k, n, s.parallel(), vector);
                } else {
                    MatMulKernel.multiply(ap, b, batchB.length > 0 ? p * k * n : 0, mm.transposeB(), chunk, m, k, n,
                            s.parallel(), vector);
                }
                System.arraycopy(chunk, 0, acc, p * m * n, m * n);
            }
            Values.canonicalNaNs(acc, total);
            if (mm.spill() != null) {
                Tensor spilled = s.output(DType.F32, s.bufferDecl(mm.spill()).shape());
                System.arraycopy(acc, 0, spilled.rawFloats(), 0, total);
                s.write(mm.spill(), spilled);
            }
            if (bias != null) {
                float[] bf = Values.floats(bias);
                for (int e = 0; e < total; e++) {
                    acc[e] += bf[biasIndex[e]];
                }
            }
            if (bias != null) {
                Values.canonicalNaNs(acc, total);
            }
            s.write(od.name(), od.dtype() == DType.F32 ? accTensor : Values.ofFloats(od.dtype(), outShape, acc));
        }
    }

    private static final int[] NO_BATCH = new int[0];

    /** The axes of {@code s} before its last two (an operand's batch axes); never modified by callers. */
    private static int[] batchAxes(Shape s) {
        if (s.rank() == 2) {
            return NO_BATCH;
        }
        int[] b = new int[s.rank() - 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = s.dim(i);
        }
        return b;
    }

    /** One product (no batch axes, A not transposed) accumulated into {@code acc}, B read in place when it is a view. */
    private static void multiplyInto(float[] a, Tensor b, BlockView bView, int bLd, boolean transposeB, float[] acc, int m,
                                     int k, int n, RunState s) {
        boolean vector = MatMulKernel.vectorFor((long) m * k * n, s.warm());
        int off = bLd >= 0 ? bView.offset() : 0;
        int ld = bLd >= 0 ? bLd : transposeB ? k : n;
        if (!MatMulKernel.packsAlone(b, transposeB, m, k, n, vector)) {
            MatMulKernel.multiply(a, b, off, ld, transposeB, acc, m, k, n, s.parallel(), vector, null);
            return;
        }
        // the packed panel of a product the calling thread runs alone comes from the run's working columns
        float[] spare = (float[]) s.scratch().column(ColType.F, 0, MatMulKernel.panelSize(k, n));
        MatMulKernel.multiply(a, b, off, ld, transposeB, acc, m, k, n, s.parallel(), vector, spare);
    }

    private static void intMatMul(Stage st, ComputeOp.MatMul mm, RunState s, Tensor a, Tensor b, int m, int k, int n,
                                  int batches, boolean batchedB, Tensor bias, int[] biasIndex, BufferDecl od, Shape outShape) throws Fault {
        if (bias != null && bias.dtype() != DType.I32) {
            throw new Fault(FaultCode.MATMUL_DTYPE, "kind/op/bias", mm.bias(), "an i32 matmul takes an i32 bias, not " + bias.dtype() + ".");
        }
        int[] av = a.rawInts();
        int[] bv = b.rawInts();
        int[] acc = new int[batches * m * n];
        for (int p = 0; p < batches; p++) {
            int aOff = p * m * k;
            int bOff = batchedB ? p * k * n : 0;
            int cOff = p * m * n;
            for (int i = 0; i < m; i++) {
                for (int kk = 0; kk < k; kk++) {
                    int x = mm.transposeA() ? av[aOff + kk * m + i] : av[aOff + i * k + kk];
                    for (int j = 0; j < n; j++) {
                        int y = mm.transposeB() ? bv[bOff + j * k + kk] : bv[bOff + kk * n + j];
                        acc[cOff + i * n + j] += x * y;
                    }
                }
            }
        }
        if (bias != null) {
            int[] bi = bias.rawInts();
            for (int e = 0; e < acc.length; e++) {
                acc[e] += bi[biasIndex[e]];
            }
        }
        s.write(od.name(), Values.ofInts(od.dtype(), outShape, acc, s.f64()));
    }
}
