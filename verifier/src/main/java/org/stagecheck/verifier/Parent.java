package org.stagecheck.verifier;

import java.util.Objects;
import org.stagecheck.spec.ir.Program;

/**
 * The program a verified program came from, and what it is to it (brief, "Certificates";
 * docs/verifier.md, "The parent"). The caller says which; the verifier never guesses from the
 * chip counts.
 *
 * <pre>{@code
 * VerifyReport split   = new Verifier().verify(tp2, certificate, Parent.unsplit(oneChip));
 * VerifyReport renamed = new Verifier().verify(child, certificate, Parent.remap(original));
 * VerifyReport alone   = new Verifier().verify(tp2, certificate, Parent.none());
 * }</pre>
 */
public sealed interface Parent {

    /** No parent: the certificate is checked against the program alone. */
    static Parent none() {
        return new None();
    }

    /**
     * {@code program} is the program before it was split: every output and state tensor of the
     * verified program must hold what this program's tensor of the same logical name holds.
     */
    static Parent unsplit(Program program) {
        return new Unsplit(program);
    }

    /**
     * The verified program is {@code program} with its buffers renamed by the certificate's remap
     * (the identity when the certificate has none).
     */
    static Parent remap(Program program) {
        return new Remap(program);
    }

    /** See {@link #none()}. */
    record None() implements Parent {}

    /** See {@link #unsplit(Program)}. */
    record Unsplit(Program program) implements Parent {
        public Unsplit {
            Objects.requireNonNull(program, "program");
        }
    }

    /** See {@link #remap(Program)}. */
    record Remap(Program program) implements Parent {
        public Remap {
            Objects.requireNonNull(program, "program");
        }
    }
}
