package org.stagecheck.spec.ir;

/** The part a stage plays on its site, derived from its kind (brief, "Stages"). */
public enum Role {
    /** Brings data into the core: Load, Recv. */
    READ_IN,
    /** Computes on buffers already on the core: Compute, Scalar. */
    COMPUTE,
    /** Writes data out to DRAM: Store. */
    WRITE_OUT,
    /** Links chips: AllReduce. */
    LINK
}
