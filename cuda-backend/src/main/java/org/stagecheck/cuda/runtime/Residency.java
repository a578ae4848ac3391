package org.stagecheck.cuda.runtime;

import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;

import org.stagecheck.tensor.Tensor;

/**
 * What each DRAM tensor's device region holds, as far as its runner knows: zeros (a fresh
 * allocation, or a region the runner cleared), the bytes of one host tensor (one it uploaded, or
 * one it made from a download), or nothing known (the program wrote the region and nobody read it
 * back, or a step failed half-way). A step uploads a bound tensor only when its region does not
 * hold that very object: tensors are never mutated once handed out ({@link Tensor}), so the same
 * object means the same bytes, and comparing identities costs nothing where a digest would read
 * every weight on every step. A different object is uploaded even when its bytes are equal.
 * The tensors are held weakly: the runner does not keep a caller's weights alive, and a tensor
 * that was collected cannot be bound again.
 */
final class Residency {
    private sealed interface Held permits Zeros, Copy {}

    private record Zeros() implements Held {}

    private record Copy(WeakReference<Tensor> tensor) implements Held {}

    private static final Held ZEROS = new Zeros();

    private final Map<String, Held> held = new HashMap<>();

    /** Whether {@code name}'s region holds {@code value}'s bytes ({@code null}: all zeros). */
    boolean holds(String name, Tensor value) {
        return switch (held.get(name)) {
            case null -> false;
            case Zeros z -> value == null;
            case Copy c -> value != null && c.tensor().get() == value;
        };
    }

    /** {@code name}'s region now holds {@code value}'s bytes ({@code null}: all zeros). */
    void record(String name, Tensor value) {
        held.put(name, value == null ? ZEROS : new Copy(new WeakReference<>(value)));
    }

    /** {@code name}'s region was written on the device: its bytes are not known on the host. */
    void forget(String name) {
        held.remove(name);
    }

    /** Nothing is known any more (a step failed part-way): the next step uploads every bound tensor. */
    void forgetAll() {
        held.clear();
    }
}
