package org.stagecheck.spec.ir;

import java.util.List;

/**
 * The program of a {@code Scalar} stage, run on the core's scalar unit: expression {@code k}
 * (over parameters, constants and the single elements of the one-element input buffers, as
 * {@code in0}, {@code in1}, ...) is written to output port {@code k}, itself a one-element buffer.
 * Element indices ({@code index(axis)}) have no meaning here.
 */
public record ScalarBody(List<Expr> results) {
    public ScalarBody {
        results = List.copyOf(results);
    }
}
