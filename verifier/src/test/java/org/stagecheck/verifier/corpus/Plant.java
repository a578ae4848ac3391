package org.stagecheck.verifier.corpus;

import org.stagecheck.verifier.Code;

/**
 * A bug class planted into a valid tensor-parallel program (the mutation corpus), with
 * the code the checker must reject it with. {@link #NONE} is the valid split.
 */
public enum Plant {
    NONE(null),
    /** The all-reduce leaves out the last chip's partial. */
    DROP_SLICE(Code.ALLREDUCE_GAP),
    /** The last chip holds (and the certificate says so) the first chip's slice of W2. */
    DUPLICATE_SLICE(Code.ALLREDUCE_VIEW_MISMATCH),
    /** Every chip adds b2 to its partial, then the partials are reduced. */
    BIAS_BEFORE_REDUCE(Code.PARTIAL_PLUS_FULL),
    /** The same, with b2 named as the second matmul's bias. */
    MATMUL_BIAS_BEFORE_REDUCE(Code.PARTIAL_PLUS_FULL),
    /** A tanh on each partial before the reduce. */
    NONLINEAR_BEFORE_REDUCE(Code.PARTIAL_NONLINEAR),
    /** Each chip stores its partial instead of the reduced, biased value. */
    STORE_PARTIAL(Code.PARTIAL_STORE),
    /** A second sum all-reduce over the already reduced (full) values. */
    REDUCE_OF_REPLICATED(Code.REDUCE_OF_FULL),
    /** The combine's last step subtracts instead of adding. */
    WRONG_COMBINE(Code.ALLREDUCE_COMBINE),
    /** A remap renames the first matmul's bias everywhere but inside the op (needs bias1). */
    UNMAPPED_INTERNAL_REF(Code.REMAP_INTERNAL_REF),
    /** A remap sends W2's buffer to W1's buffer's name (needs model == slice and one W2 buffer, so shapes agree). */
    COLLIDING_MAP(Code.REMAP_NOT_INJECTIVE),
    /** Chip 0's receive of x runs before the multicast load (needs multicast). */
    RECV_BEFORE_LOAD(Code.RECV_BEFORE_LOAD),
    /** Chip 0's compute core never receives x (needs multicast). */
    RECEIVER_LEFT_OUT(Code.RECV_MISSING);

    private final Code expected;

    Plant(Code expected) {
        this.expected = expected;
    }

    /** The code the checker must report; null for {@link #NONE}. */
    public Code expected() {
        return expected;
    }

    /**
     * The code when planted into an authored split. There the stored partial goes to the scratch
     * feeding the next multicast, which the checker reads back as the partial it is; the finding
     * is where it is next used as a plain value (the norm that follows).
     */
    public Code expectedAuthored() {
        return this == STORE_PARTIAL ? Code.PARTIAL_NONLINEAR : expected;
    }

    /** Whether the plant can go into a program of {@code spec}. */
    public boolean fits(TpSpec spec) {
        return switch (this) {
            case UNMAPPED_INTERNAL_REF -> spec.bias1();
            case COLLIDING_MAP -> spec.model() == spec.slice() && !spec.streamK();
            case RECV_BEFORE_LOAD, RECEIVER_LEFT_OUT -> spec.multicast();
            case NONE, DROP_SLICE, DUPLICATE_SLICE, BIAS_BEFORE_REDUCE, MATMUL_BIAS_BEFORE_REDUCE, NONLINEAR_BEFORE_REDUCE,
                 STORE_PARTIAL, REDUCE_OF_REPLICATED, WRONG_COMBINE -> true;
        };
    }
}
