package org.stagecheck.spec.ir;

/**
 * A buffer that a stage's kind names beyond its ports ({@code ins}/{@code outs}): an index
 * buffer, an offset buffer, a bias or a spill. {@code role} says which; {@code field} is where,
 * as the JSON path fragment below the stage's {@code kind}. A pass that renumbers buffers must
 * rename these too, or the stage silently points at another buffer (the buffer-remap error class).
 */
public record InternalRef(Role role, String field, String buffer) {
    /** What a kind-internal reference is for: each role has its own fit (brief, "Certificates", buffer remap). */
    public enum Role {
        /** An indirect pattern's index buffer: the rows to read or write. */
        INDEX_BUFFER,
        /** A buffer whose single element is a term of a pattern's offset. */
        OFFSET_TERM,
        /** A matmul's bias, added after the accumulation. */
        BIAS,
        /** A matmul's spill: the f32 accumulator it starts from. */
        SPILL;

        /**
         * Whether a stage may read a reference of this role before any stage wrote it. A matmul
         * reads its spill (each accumulator starts at the spill's value) and writes it back, but a
         * spill no stage wrote reads as +0 (brief, "Stages"; the reference's MatMul), so reading it
         * unwritten is no fault. Every other reference must have been written first.
         */
        public boolean mayBeReadUnwritten() {
            return switch (this) {
                case SPILL -> true;
                case INDEX_BUFFER, OFFSET_TERM, BIAS -> false;
            };
        }
    }
}
