package org.stagecheck.conformance;

/**
 * Whether a case is part of the contract every backend must meet (docs/semantics.md: the contract
 * is defined on well-formed programs).
 */
public enum Scope {
    /** The program is well-formed (the validator accepts it): every backend must pass the case. */
    WELL_FORMED,
    /**
     * The validator rejects the program (a batched MatMul, say), but the reference evaluates it
     * and docs/semantics.md says how. A backend that supports the construct should pass the case;
     * one that does not skips these cases ({@link Conformance#skipLenient()}).
     */
    LENIENT
}
