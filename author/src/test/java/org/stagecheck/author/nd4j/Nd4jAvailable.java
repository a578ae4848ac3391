package org.stagecheck.author.nd4j;

import org.nd4j.linalg.factory.Nd4j;

/**
 * Whether ND4J's native backend loads here. The tests of this package skip with this reason when
 * it does not (as interp's ND4J oracle does): the authored programs are still checked by the
 * first reference ({@code ReferenceTransformer}).
 */
final class Nd4jAvailable {
    private static final String PROBLEM = probe();

    private Nd4jAvailable() {
    }

    private static String probe() {
        try {
            double s = Nd4j.createFromArray(1.0, 2.0).reshape('c', 1, 2)
                    .mmul(Nd4j.createFromArray(3.0, 4.0).reshape('c', 2, 1)).getDouble(0);
            return s == 11.0 ? null : "ND4J gave 1*3 + 2*4 = " + s;
        } catch (Throwable t) {
            return "ND4J's native backend did not load on this machine: " + t;
        }
    }

    /** null when ND4J works, else why not. */
    static String problem() {
        return PROBLEM;
    }
}
