package org.stagecheck.interp.accuracy;

import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * ND4J as an independent oracle (brief, "Modules": test scope only). Loading its native backend
 * can fail on an unusual machine; {@link #problem()} says so once, and the comparison tests
 * then skip with that reason instead of failing.
 */
final class Nd4jOracle {
    private static final String PROBLEM = probe();

    private Nd4jOracle() {
    }

    private static String probe() {
        try {
            INDArray x = Nd4j.createFromArray(1f, 2f).reshape('c', 1, 2);
            return x.sumNumber().floatValue() == 3f ? null : "ND4J gave a wrong sum";
        } catch (Throwable t) {
            return "ND4J's native backend did not load on this machine: " + t;
        }
    }

    /** null when ND4J works, else why not. */
    static String problem() {
        return PROBLEM;
    }

    static INDArray floats(float[] v, int... shape) {
        long[] s = new long[shape.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = shape[i];
        }
        return Nd4j.createFromArray(v).reshape('c', s);
    }

    static INDArray ints(int[] v, int... shape) {
        long[] s = new long[shape.length];
        for (int i = 0; i < s.length; i++) {
            s[i] = shape[i];
        }
        return Nd4j.createFromArray(v).reshape('c', s);
    }

    static float[] toFloats(INDArray a) {
        return a.castTo(DataType.FLOAT).dup('c').data().asFloat();
    }

    static int[] toInts(INDArray a) {
        return a.castTo(DataType.INT32).dup('c').data().asInt();
    }
}
