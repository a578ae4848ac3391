package org.stagecheck.spec.validate;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.Shape;

/**
 * The buffer-side shape of an access pattern: what a {@code Load} of {@code numBlocks} blocks
 * fills, and what a {@code Store} must be given (AccessPattern's javadoc).
 */
public final class PatternShapes {
    private PatternShapes() {}

    /**
     * The buffer shape for {@code numBlocks} blocks, or null when the pattern is itself malformed
     * (the caller reports that separately). {@code indexLength} is the index buffer's length for
     * {@link AccessPattern.Indirect}.
     */
    public static Shape bufferShape(AccessPattern p, int numBlocks, int indexLength) {
        return switch (p) {
            case AccessPattern.Block b -> b.block();
            case AccessPattern.Streamed s -> {
                if (s.axis() < 0 || s.axis() >= s.block().rank()) {
                    yield null;
                }
                long n = (long) s.block().dim(s.axis()) * numBlocks;
                yield n > Integer.MAX_VALUE ? null : s.block().withDim(s.axis(), (int) n);
            }
            case AccessPattern.Indirect i -> {
                List<Integer> dims = new ArrayList<>();
                dims.add(indexLength);
                dims.addAll(i.block().dims());
                yield dims.size() > Shape.MAX_RANK ? null : new Shape(dims);
            }
        };
    }

    /** The rank of tensor the pattern addresses: one origin entry per tensor axis. */
    public static int tensorRank(AccessPattern p) {
        return switch (p) {
            case AccessPattern.Block b -> b.block().rank();
            case AccessPattern.Streamed s -> s.block().rank();
            case AccessPattern.Indirect i -> i.block().rank() + 1;
        };
    }
}
