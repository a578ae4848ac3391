package org.stagecheck.spec.ir;

/**
 * Element types of tensors and buffers (brief, "The machine model"): f32, bf16, f16, i32, and the
 * OCP 8-bit floats e4m3 and e5m2.
 *
 * <p>Floating types are computed in f32 and rounded to the storage type once per stage
 * (docs/semantics.md); i32 is two's-complement with wrap-around. How each is stored and converted
 * is decided per dtype by exhaustive switches (the tensor module's storage and codecs), so a new
 * constant here fails to compile wherever it is not yet handled.
 */
public enum DType {
    F32("f32", 4, true),
    BF16("bf16", 2, true),
    F16("f16", 2, true),
    I32("i32", 4, false),
    /** OCP 8-bit float, 4 exponent and 3 mantissa bits, no infinities, largest finite 448. */
    E4M3("e4m3", 1, true),
    /** OCP 8-bit float, 5 exponent and 2 mantissa bits, IEEE-like infinities, largest finite 57344. */
    E5M2("e5m2", 1, true);

    private final String jsonName;
    private final int byteSize;
    private final boolean floating;

    DType(String jsonName, int byteSize, boolean floating) {
        this.jsonName = jsonName;
        this.byteSize = byteSize;
        this.floating = floating;
    }

    /** The spelling used in program files, e.g. {@code "bf16"}. */
    public String jsonName() {
        return jsonName;
    }

    public int byteSize() {
        return byteSize;
    }

    public boolean isFloating() {
        return floating;
    }

    public boolean isInteger() {
        return !floating;
    }

    /** The dtype spelled {@code name}, or null when there is none. */
    public static DType fromJsonName(String name) {
        for (DType d : values()) {
            if (d.jsonName.equals(name)) {
                return d;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return jsonName;
    }
}
