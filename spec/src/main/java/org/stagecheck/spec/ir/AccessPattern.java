package org.stagecheck.spec.ir;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Which elements of a tensor a {@code Load} reads or a {@code Store} writes (brief, "Stages",
 * access patterns).
 */
public sealed interface AccessPattern {

    /**
     * The shape of one block (for {@link Indirect}, of the window over the axes after the first);
     * every pattern's record component of that name implements it.
     */
    Shape block();

    /** One rectangular block of shape {@code block} whose corner is at {@code origin}. */
    record Block(List<Offset> origin, Shape block) implements AccessPattern {
        public Block {
            origin = List.copyOf(origin);
            Objects.requireNonNull(block, "block");
        }
    }

    /**
     * Blocks of shape {@code block} streamed along {@code axis}: block {@code k} has its corner at
     * {@code origin + k * stride} on that axis. The blocks are laid side by side along
     * {@code axis} in the buffer, so a {@code Load} of {@code numBlocks} blocks fills a buffer
     * whose {@code axis} is {@code numBlocks} times the block's. A stride equal to the block's
     * extent reads a contiguous run; a larger one skips (an interleaved tiling).
     */
    record Streamed(List<Offset> origin, Shape block, int axis, long stride) implements AccessPattern {
        public Streamed {
            origin = List.copyOf(origin);
            Objects.requireNonNull(block, "block");
        }
    }

    /**
     * Rows chosen by an integer index buffer (an embedding lookup, a paged cache): element
     * {@code i} of the i32 buffer {@code indexBuffer} (shape {@code [n]}, on the stage's core)
     * selects index {@code idx[i]} along axis 0; the remaining axes are the window {@code
     * origin}/{@code block}. The buffer side has shape {@code [n] ++ block}.
     */
    record Indirect(String indexBuffer, List<Offset> origin, Shape block) implements AccessPattern {
        public Indirect {
            Objects.requireNonNull(indexBuffer, "indexBuffer");
            origin = List.copyOf(origin);
            Objects.requireNonNull(block, "block");
        }
    }

    /** The origin offsets (one per tensor axis; for {@link Indirect}, per axis after the first). */
    default List<Offset> originOffsets() {
        return switch (this) {
            case Block b -> b.origin();
            case Streamed s -> s.origin();
            case Indirect i -> i.origin();
        };
    }

    /** Every buffer the pattern itself names: index buffers and offset terms. */
    default List<String> internalBuffers() {
        List<String> out = new ArrayList<>();
        if (this instanceof Indirect i) {
            out.add(i.indexBuffer());
        }
        for (Offset o : originOffsets()) {
            out.addAll(o.buffers());
        }
        return out;
    }

    default AccessPattern remapBuffers(UnaryOperator<String> map) {
        return switch (this) {
            case Block b -> new Block(remap(b.origin(), map), b.block());
            case Streamed s -> new Streamed(remap(s.origin(), map), s.block(), s.axis(), s.stride());
            case Indirect i -> new Indirect(map.apply(i.indexBuffer()), remap(i.origin(), map), i.block());
        };
    }

    private static List<Offset> remap(List<Offset> offsets, UnaryOperator<String> map) {
        return offsets.stream().map(o -> o.remapBuffers(map)).toList();
    }
}
