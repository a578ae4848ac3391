package org.stagecheck.cli;

import org.stagecheck.tensor.compare.Policy;

/** A tolerance policy given on the command line ({@code --policy}, {@code --tolerance}, ...): any spelling {@link Policy#parse} reads. */
final class PolicyOption {
    private PolicyOption() {
    }

    /** The policy spelled {@code text}; bad input naming {@code option} and what is wrong otherwise. */
    static Policy parse(String option, String text) throws BadInputException {
        try {
            return Policy.parse(text);
        } catch (IllegalArgumentException e) {
            throw new BadInputException(option + ": " + e.getMessage());
        }
    }
}
