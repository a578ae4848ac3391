package org.stagecheck.tensor.safetensors;

import java.util.Map;

import org.stagecheck.spec.ir.DType;

/** The dtype names a safetensors header may carry, their element sizes, and which of them stagecheck reads. */
final class SafetensorsDTypes {
    /** Bytes per element of every dtype the format defines (the ones the reference implementation writes). */
    private static final Map<String, Integer> BYTES = Map.ofEntries(
            Map.entry("F64", 8), Map.entry("F32", 4), Map.entry("F16", 2), Map.entry("BF16", 2),
            Map.entry("I64", 8), Map.entry("I32", 4), Map.entry("I16", 2), Map.entry("I8", 1),
            Map.entry("U64", 8), Map.entry("U32", 4), Map.entry("U16", 2), Map.entry("U8", 1),
            Map.entry("BOOL", 1), Map.entry("C64", 8),
            Map.entry("F8_E4M3", 1), Map.entry("F8_E5M2", 1), Map.entry("F8_E4M3FNUZ", 1), Map.entry("F8_E5M2FNUZ", 1));

    private SafetensorsDTypes() {
    }

    /** Bytes per element of {@code name}, or 0 for a name the format does not define. */
    static int byteSize(String name) {
        return BYTES.getOrDefault(name, 0);
    }

    /** The stagecheck dtype {@code name} is read as (F32, BF16, F16), or null when stagecheck does not read it. */
    static DType readable(String name) {
        return switch (name) {
            case "F32" -> DType.F32;
            case "BF16" -> DType.BF16;
            case "F16" -> DType.F16;
            default -> null;
        };
    }

    /** The header name of a dtype stagecheck writes. */
    static String nameOf(DType dtype) {
        return switch (dtype) {
            case F32 -> "F32";
            case BF16 -> "BF16";
            case F16 -> "F16";
            case I32, E4M3, E5M2 -> throw new IllegalArgumentException(
                    "stagecheck writes f32, bf16 and f16 tensors to safetensors files, not " + dtype);
        };
    }
}
