package org.stagecheck.interp.eval;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.rules.Rule;

/** numpy broadcasting of an input to an output shape: axes aligned on the right, each 1 or equal. */
final class Broadcast {
    private Broadcast() {
    }

    /** For each output element, the flat index of the input element it reads. */
    static int[] sourceIndex(Shape in, int[] out, String what) throws Fault {
        int ro = out.length;
        int ri = in.rank();
        if (ri > ro) {
            throw new Fault(Rule.BROADCAST, what + " of shape " + in + " does not broadcast to " + Shape.of(out) + ".");
        }
        long[] inStrides = in.strides();
        long[] step = new long[ro];
        for (int a = 0; a < ro; a++) {
            int ia = a - (ro - ri);
            if (ia < 0) {
                continue;
            }
            int d = in.dim(ia);
            if (d == out[a]) {
                step[a] = inStrides[ia];
            } else if (d != 1) {
                throw new Fault(Rule.BROADCAST, what + " of shape " + in + " does not broadcast to " + Shape.of(out) + ".");
            }
        }
        int n = (int) Shape.of(out).elementCount();
        int[] src = new int[n];
        int[] idx = new int[ro];
        long pos = 0;
        for (int e = 0; e < n; e++) {
            src[e] = (int) pos;
            for (int a = ro - 1; a >= 0; a--) {
                idx[a]++;
                pos += step[a];
                if (idx[a] < out[a]) {
                    break;
                }
                pos -= step[a] * idx[a];
                idx[a] = 0;
            }
        }
        return src;
    }
}
