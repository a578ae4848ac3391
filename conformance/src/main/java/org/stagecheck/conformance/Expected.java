package org.stagecheck.conformance;

import java.util.Objects;

import org.stagecheck.tensor.Tensor;

/**
 * The hand-worked value of one DRAM tensor (an output or a state tensor) after a case's run, and
 * how closely a backend must match it.
 */
public record Expected(String tensor, Tensor value, Tolerance tolerance) {
    public Expected {
        Objects.requireNonNull(tensor, "tensor");
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(tolerance, "tolerance");
        if (value.isFloat64()) {
            throw new IllegalArgumentException("expected tensor '" + tensor + "' must be stored in its dtype, not as float64 values");
        }
    }
}
