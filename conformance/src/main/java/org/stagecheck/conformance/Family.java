package org.stagecheck.conformance;

/**
 * The stage kind or op family a case tests; one class of cases per family ({@code LoadCases},
 * {@code MatMulCases}, ...). The name is the first part of every case name, e.g.
 * {@code matmul/spill-and-bias}.
 */
public enum Family {
    LOAD("load"),
    STORE("store"),
    RECV("recv"),
    ALL_REDUCE("allreduce"),
    GENERIC("generic"),
    FUNCTION("function"),
    MATMUL("matmul"),
    REDUCE("reduce"),
    LAYOUT("layout"),
    SCALAR("scalar"),
    DTYPE("dtype");

    private final String prefix;

    Family(String prefix) {
        this.prefix = prefix;
    }

    /** The first part of the family's case names. */
    public String prefix() {
        return prefix;
    }
}
