package org.stagecheck.spec.ir;

/**
 * What a DRAM tensor is for. Inputs and weights are bound before a run, state tensors (a KV
 * cache) are read and updated in place across runs, outputs are what a run produces, scratch is
 * the program's own.
 */
public enum TensorRole {
    INPUT, WEIGHT, STATE, OUTPUT, SCRATCH;

    public String jsonName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Whether the tensor is what a run leaves for its caller: an output, or state carried to the next run. */
    public boolean isResult() {
        return this == OUTPUT || this == STATE;
    }

    /** Whether the tensor's value comes from outside the program at the start of a run. */
    public boolean isBoundBeforeRun() {
        return this == INPUT || this == WEIGHT || this == STATE;
    }
}
