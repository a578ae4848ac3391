package org.stagecheck.interp.eval;

import java.util.Arrays;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.rules.OpRules;

/**
 * {@code Compute(MatMul)} (brief, "Stages"; docs/semantics.md, "MatMul"): {@code out = op(A) x
 * op(B) (+ bias)} with A = ins[0] {@code [M, K]} ({@code [K, M]} when transposed) and B = ins[1]
 * {@code [K, N]} ({@code [N, K]}), floating; the shapes and dtypes are the language's rules
 * ({@link OpRules#matmul}), held on the declarations before the stage runs. Each output
 * element's accumulator starts at the spill's value (or +0), takes {@code acc = fma(a, b, acc)}
 * for k ascending in f32 (double in float64 mode), is written back to the spill, then the bias is
 * added once in f32 and the sum rounded once to the output dtype. A spill never written by an
 * earlier stage reads as +0.
 */
final class MatMulEval {
    private MatMulEval() {
    }

    static void run(Stage st, ComputeOp.MatMul mm, RunState s) throws Fault {
        BufferDecl ad = s.bufferDecl(Ports.in(st, 0));
        BufferDecl bd = s.bufferDecl(Ports.in(st, 1));
        BufferDecl od = s.bufferDecl(Ports.out(st, 0));
        // the rules (rank-2 floating operands, the product's shape, bias, spill) held: RunState.holdToRules
        OpRules.Product product = OpRules.product(ad.shape(), bd.shape(), mm.transposeA(), mm.transposeB());
        int m = product.m();
        int k = product.k();
        int n = product.n();
        Shape outShape = od.shape();
        Tensor a = s.read(Ports.in(st, 0));
        // a weight block a Load left in place is multiplied there (f32 mode), else B is read as usual
        BlockView bView = s.f64() ? null : s.viewOrNull(Ports.in(st, 1));
        int bLd = bView == null || !bView.source().dtype().isFloating() ? -1 : bView.matrixLd();
        Tensor b = bLd >= 0 ? bView.source() : s.read(Ports.in(st, 1));
        int total = m * n;
        int[] biasIndex = null;
        Tensor bias = null;
        if (mm.bias() != null) {
            bias = s.read(mm.bias());
            biasIndex = s.shapes().broadcast(bias.shape(), outShape, "bias '" + mm.bias() + "'").source();
        }
        Tensor spill = mm.spill() == null ? null : s.readOrNull(mm.spill());
        if (s.f64()) {
            double[] acc = spill == null ? new double[total] : Values.doubles(spill).clone();
            double[] av = Values.doubles(a);
            double[] bv = Values.doubles(b);
            for (int i = 0; i < m; i++) {
                for (int kk = 0; kk < k; kk++) {
                    double x = mm.transposeA() ? av[kk * m + i] : av[i * k + kk];
                    for (int j = 0; j < n; j++) {
                        double y = mm.transposeB() ? bv[j * k + kk] : bv[kk * n + j];
                        acc[i * n + j] = Math.fma(x, y, acc[i * n + j]);
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
            if (!mm.transposeA()) {
                // A as it lies: the kernel reads A and accumulates into acc directly
                multiplyInto(av, b, bView, bLd, mm.transposeB(), acc, m, k, n, s);
            } else {
                // A^T is copied into [M, K] first, and the product accumulated in a chunk
                float[] ap = new float[m * k];
                for (int kk = 0; kk < k; kk++) {
                    for (int i = 0; i < m; i++) {
                        ap[i * k + kk] = av[kk * m + i];
                    }
                }
                float[] chunk = new float[m * n];
                System.arraycopy(acc, 0, chunk, 0, m * n);
                boolean vector = MatMulKernel.vectorFor((long) m * k * n, s.warm());
                if (bLd >= 0) {
                    MatMulKernel.multiply(ap, b, bView.offset(), bLd, mm.transposeB(), chunk, m, k, n, s.parallel(), vector);
                } else {
                    MatMulKernel.multiply(ap, b, 0, mm.transposeB(), chunk, m, k, n, s.parallel(), vector);
                }
                System.arraycopy(chunk, 0, acc, 0, m * n);
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
}
