package org.stagecheck.cli;

import java.util.List;
import java.util.Locale;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * What a run holds at its peak, counted before anything is allocated (docs/format.md, "Limits"):
 * every DRAM tensor and buffer (the evaluator keeps them all live) but the weight blocks a MatMul
 * multiplies in place ({@link #multipliedInPlace}); with {@code --f64} every
 * floating value as 8 bytes, plus the bound tensors as read from their files; with
 * {@code --trace} every stage's outputs too, which the trace keeps. A run over the heap is bad
 * input (exit 2) in every mode, before the work; a heap that still runs out during the run is
 * reported the same way.
 */
record MemoryEstimate(long bytes, boolean f64, boolean trace) {
    static MemoryEstimate of(Program program, boolean f64, boolean trace) {
        long bytes = 0;
        for (TensorDecl t : program.tensors()) {
            bytes = add(bytes, size(t.shape(), t.dtype(), f64));
            if (f64 && t.dtype().isFloating() && t.role().isBoundBeforeRun()) {
                bytes = add(bytes, size(t.shape(), t.dtype(), false)); // the value as read, before widening
            }
        }
        java.util.Set<String> inPlace = f64 || trace ? java.util.Set.of() : multipliedInPlace(program);
        for (BufferDecl b : program.buffers()) {
            if (!inPlace.contains(b.name())) {
                bytes = add(bytes, size(b.shape(), b.dtype(), f64));
            }
        }
        if (trace) {
            var buffers = program.buffersByName();
            for (Stage s : program.stages()) {
                for (String out : s.outs()) {
                    BufferDecl b = buffers.get(out);
                    if (b != null) {
                        bytes = add(bytes, size(b.shape(), b.dtype(), f64));
                    }
                }
            }
        }
        return new MemoryEstimate(bytes, f64, trace);
    }

    /**
     * The buffers the interpreter never copies in a run without --f64 or --trace: each is filled
     * by a Load of one block of a tensor (a block pattern, one block, no multicast, at most two
     * axes not 1), which leaves the block in place, and only MatMul stages read it, as their right
     * operand, which they multiply where it lies. A decode step's weight tiles are such buffers:
     * counted, they would double the estimate of a checkpoint's run.
     */
    private static java.util.Set<String> multipliedInPlace(Program program) {
        java.util.Set<String> loaded = new java.util.HashSet<>();
        java.util.Set<String> readOtherwise = new java.util.HashSet<>();
        for (Stage s : program.stages()) {
            if (s.kind() instanceof StageKind.Load l && l.multicast() == null && l.numBlocks() == 1
                    && l.pattern() instanceof AccessPattern.Block b && atMostTwoAxesOver1(b.block()) && s.outs().size() == 1) {
                loaded.add(s.outs().getFirst());
            }
            List<String> read = s.buffersRead();
            boolean matmul = s.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.MatMul;
            for (int i = 0; i < read.size(); i++) {
                if (!(matmul && i == 1)) {
                    readOtherwise.add(read.get(i));
                }
            }
        }
        loaded.removeAll(readOtherwise);
        return loaded;
    }

    private static boolean atMostTwoAxesOver1(Shape block) {
        for (int a = 0; a < block.rank() - 2; a++) {
            if (block.dim(a) != 1) {
                return false;
            }
        }
        return block.rank() > 0;
    }

    /** Refuses a run that cannot fit in {@code maxHeap} bytes (with an eighth kept for the rest). */
    void check(long maxHeap) throws BadInputException {
        if (bytes > maxHeap - (maxHeap >> 3)) {
            throw new BadInputException(message(maxHeap));
        }
    }

    /** The one-line reason, the same before the run and when the heap runs out during it. */
    String message(long maxHeap) {
        String counted = (f64 ? ", counting floating values as 8 bytes (--f64)" : "")
                + (trace ? ", with every stage's outputs kept (--trace)" : "");
        return String.format(Locale.ROOT, "the program's tensors and buffers take %.1f GiB%s, more than this JVM can hold (%.1f GiB); "
                + "give more with STAGECHECK_JAVA_OPTS=-Xmx<size>", bytes / (double) (1L << 30), counted, maxHeap / (double) (1L << 30));
    }

    /** The reason when the heap ran out during the run although the estimate fitted. */
    String ranOut(long maxHeap, String stage) {
        return String.format(Locale.ROOT, "out of memory at stage %s (the estimate was %.1f GiB of this JVM's %.1f GiB); "
                + "give more with STAGECHECK_JAVA_OPTS=-Xmx<size>", org.stagecheck.spec.validate.NameRules.quote(String.valueOf(stage)),
                bytes / (double) (1L << 30), maxHeap / (double) (1L << 30));
    }

    private static long size(Shape shape, DType dtype, boolean f64) {
        long n;
        try {
            n = shape.elementCount();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
        long width = f64 && dtype.isFloating() ? 8 : dtype.byteSize();
        return n > Long.MAX_VALUE / width ? Long.MAX_VALUE : n * width;
    }

    private static long add(long a, long b) {
        long s = a + b;
        return s < 0 ? Long.MAX_VALUE : s;
    }
}
