package org.stagecheck.cuda.runtime;

/**
 * A failed driver or emulation call: the call, the CUDA error name when there is one, and what
 * it means. The runner turns it into a diagnostic naming the stage whose kernel failed.
 */
public final class LaunchException extends Exception {
    private final String errorName;
    private final int stageIndex;

    public LaunchException(String errorName, String message) {
        this(errorName, message, -1);
    }

    private LaunchException(String errorName, String message, int stageIndex) {
        super(message, null, false, false);
        this.errorName = errorName;
        this.stageIndex = stageIndex;
    }

    /** This failure, attributed to stage {@code index} (whose kernel was being launched). */
    public LaunchException atStage(int index, String stageId, String kernel) {
        return stageIndex >= 0 ? this : new LaunchException(errorName, "stage " + index + " '" + stageId + "' (kernel "
                + kernel + "): " + getMessage(), index);
    }

    /** The stage whose kernel failed, or -1 when the failure was not a launch. */
    public int stageIndex() {
        return stageIndex;
    }

    /**
     * Whether this is a fault raised inside a kernel while it ran (an illegal address, a trap, a
     * timeout): the driver reports such a fault at the next call that waits or launches, not at
     * the faulting kernel's launch, and every call after it fails the same way.
     */
    public boolean raisedByAnEarlierKernel() {
        return switch (errorName) {
            case "CUDA_ERROR_ILLEGAL_ADDRESS", "CUDA_ERROR_LAUNCH_TIMEOUT", "CUDA_ERROR_ASSERT", "CUDA_ERROR_HARDWARE_STACK_ERROR",
                 "CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_MISALIGNED_ADDRESS", "CUDA_ERROR_INVALID_ADDRESS_SPACE",
                 "CUDA_ERROR_INVALID_PC", "CUDA_ERROR_LAUNCH_FAILED" -> true;
            default -> false;
        };
    }

    /** The CUDA error name (e.g. {@code CUDA_ERROR_ILLEGAL_ADDRESS}), or a stagecheck code. */
    public String errorName() {
        return errorName;
    }
}
