package org.stagecheck.golden.debug;

import java.util.List;

import org.stagecheck.tensor.compare.Comparison;

/**
 * One stage's line in a diff.
 *
 * @param index   the stage's position in reference order
 * @param id      the stage id
 * @param kind    the kind, with the op of a Compute ({@code Compute/MatMul})
 * @param verdict what the comparison found
 * @param outputs one comparison per output port (reference expected, backend actual); empty unless compared
 * @param note    why, in a few words, or null
 */
public record StageVerdict(int index, String id, String kind, Verdict verdict, List<Comparison> outputs, String note) {
    public StageVerdict {
        outputs = List.copyOf(outputs);
    }

    public enum Verdict {
        /** Every output port within the policy. */
        AGREES,
        /** Some output port outside the policy. */
        DIVERGES,
        /** The backend recorded no value of this stage. */
        NOT_TRACED,
        /** The stage has no output port (a Store): it is judged through what reads the tensor it writes. */
        NO_OUTPUTS;

        /** The lower-case words used in text, JSON and HTML. */
        public String words() {
            return switch (this) {
                case AGREES -> "agrees";
                case DIVERGES -> "diverges";
                case NOT_TRACED -> "not traced";
                case NO_OUTPUTS -> "no outputs";
            };
        }
    }
}
