package org.stagecheck.cuda.lower;

import java.util.Locale;

import org.stagecheck.spec.ir.DType;

/**
 * The spelling of values, types and names in generated CUDA C: dtype storage types, element reads
 * widened to f32 and writes narrowed from it (through sc_rt.h's bit-exact helpers), float
 * literals that parse back to the same bits, and names made safe for identifiers and comments.
 */
public final class CText {
    private CText() {
    }

    /** The storage type of one element of {@code dtype}. */
    public static String cType(DType dtype) {
        return switch (dtype) {
            case F32 -> "float";
            case BF16, F16 -> "uint16_t";
            case E4M3, E5M2 -> "uint8_t";
            case I32 -> "int";
        };
    }

    /** Whether a value of {@code dtype} is computed as an i32 (else as an f32). */
    public static boolean computesAsInt(DType dtype) {
        return switch (dtype) {
            case I32 -> true;
            case F32, BF16, F16, E4M3, E5M2 -> false;
        };
    }

    /** Element {@code index} of {@code ptr} (of {@code dtype}) as its compute value: f32 widened exactly, or i32. */
    public static String read(DType dtype, String ptr, String index) {
        String e = ptr + "[" + index + "]";
        return switch (dtype) {
            case F32, I32 -> e;
            case BF16 -> "sc_bf16_to_f32(" + e + ")";
            case F16 -> "sc_f16_to_f32(" + e + ")";
            case E4M3 -> "sc_e4m3_to_f32(" + e + ")";
            case E5M2 -> "sc_e5m2_to_f32(" + e + ")";
        };
    }

    /** An f32 value stored as {@code dtype} by the reference's rounding rule. */
    public static String fromFloat(DType dtype, String value) {
        return switch (dtype) {
            case F32 -> value;
            case BF16 -> "sc_f32_to_bf16(" + value + ")";
            case F16 -> "sc_f32_to_f16(" + value + ")";
            case E4M3 -> "sc_f32_to_e4m3(" + value + ")";
            case E5M2 -> "sc_f32_to_e5m2(" + value + ")";
            case I32 -> "sc_f2i(" + value + ")";
        };
    }

    /** An i32 value stored as {@code dtype}: floats through f32 (nearest even), then rounded. */
    public static String fromInt(DType dtype, String value) {
        return switch (dtype) {
            case I32 -> value;
            case F32 -> "sc_i2f(" + value + ")";
            case BF16, F16, E4M3, E5M2 -> fromFloat(dtype, "sc_i2f(" + value + ")");
        };
    }

    /**
     * The element {@code src[srcIndex]} of {@code from} converted for storage as {@code to}: a bit
     * copy when the dtypes agree, else through the compute value (the reference's Copy rule).
     */
    public static String convert(DType from, DType to, String src, String srcIndex) {
        if (from == to) {
            return src + "[" + srcIndex + "]";
        }
        String v = read(from, src, srcIndex);
        return computesAsInt(from) ? fromInt(to, v) : fromFloat(to, v);
    }

    /** An f32 literal equal to {@code (float) value}, bit for bit. */
    public static String floatLiteral(double value) {
        float f = (float) value;
        if (Float.isNaN(f) || Float.isInfinite(f)) {
            return "sc_bits_f32(0x" + Integer.toHexString(Float.floatToRawIntBits(f)) + "u)";
        }
        // Float.toString is the shortest decimal that reads back to f; C's strtof rounds correctly too
        return Float.toString(f).toLowerCase(Locale.ROOT) + "f";
    }

    /** An i32 literal. */
    public static String intLiteral(int v) {
        return v == Integer.MIN_VALUE ? "(-2147483647 - 1)" : Integer.toString(v);
    }

    /** A 64-bit literal. */
    public static String longLiteral(long v) {
        return v == Long.MIN_VALUE ? "(-9223372036854775807LL - 1)" : v + "LL";
    }

    /** {@code name} reduced to identifier characters (at most 40), for kernel names a person can search. */
    public static String ident(String name) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < name.length() && sb.length() < 40; i++) {
            char c = name.charAt(i);
            sb.append((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_');
        }
        return sb.toString();
    }

    /** {@code text} safe inside a {@code //} comment: printable ASCII only, no line-continuing backslash. */
    public static String comment(String text) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            sb.append(c >= 0x20 && c < 0x7F && c != '\\' ? c : '?');
        }
        return sb.toString();
    }
}
