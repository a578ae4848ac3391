package org.stagecheck.cuda.lower;

import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * {@code Load}, {@code Store} and {@code Recv} (docs/semantics.md, "Load", "Store", "Recv"): one
 * thread per element of the buffer side, which finds its block (streamed: the block along the
 * axis; indirect: the row of the index buffer), the tensor element it maps to, and moves it,
 * converting dtypes by the reference's rule. Offsets are evaluated at run time from the parameter
 * array and offset buffers; every block and index is checked against the tensor before an element
 * moves, and a failed check is the reference's fault. A Store whose blocks overlap lets the later
 * block win, as the reference's in-order writes do: a thread skips an element that a later block
 * also writes.
 */
final class MoveLowering {
    private MoveLowering() {
    }

    /** The buffer-side shape and geometry of a pattern over a tensor. */
    private record Geometry(int[] bufferShape, int[] block, int count) {}

    private static Geometry geometry(AccessPattern pattern, TensorDecl t, int numBlocks, Shape storeBuffer, Emit x) {
        int rank = t.shape().rank();
        return switch (pattern) {
            case AccessPattern.Block b -> new Geometry(b.block().toArray(), b.block().toArray(), 1);
            case AccessPattern.Streamed s -> {
                int[] block = s.block().toArray();
                int count = numBlocks;
                if (count < 0) {
                    int extent = storeBuffer.rank() == rank ? storeBuffer.dim(s.axis()) : -1;
                    if (block[s.axis()] == 0 || extent < 0 || extent % block[s.axis()] != 0) {
                        throw new LoweringException("the stored buffer " + storeBuffer + " is not a whole number of blocks " + s.block());
                    }
                    count = extent / block[s.axis()];
                }
                int[] buf = block.clone();
                buf[s.axis()] = block[s.axis()] * count;
                yield new Geometry(buf, block, count);
            }
            case AccessPattern.Indirect ind -> {
                long n = x.in(ind.indexBuffer()).elements();
                int[] block = new int[rank];
                int[] buf = new int[rank];
                block[0] = 1;
                buf[0] = (int) n;
                for (int a = 1; a < rank; a++) {
                    block[a] = ind.block().dim(a - 1);
                    buf[a] = block[a];
                }
                yield new Geometry(buf, block, (int) n);
            }
        };
    }

    /**
     * Writes the code that maps buffer element coordinates {@code i0..} to the tensor index
     * {@code t}, checking blocks and indices; declares {@code long long t} inside the element loop.
     * For a Store, also the skip of elements a later block overwrites.
     */
    private static void mapToTensor(Emit x, AccessPattern pattern, TensorDecl t, Geometry g, boolean store) {
        int rank = t.shape().rank();
        int[] dims = t.shape().toArray();
        String[] idx = new String[rank];
        switch (pattern) {
            case AccessPattern.Block b -> {
                for (int a = 0; a < rank; a++) {
                    idx[a] = "(o" + a + " + i" + a + ")";
                }
            }
            case AccessPattern.Streamed s -> {
                int ax = s.axis();
                int blk = g.block()[ax];
                x.line("long long k = i" + ax + " / " + blk + "; // block along axis " + ax);
                x.line("int ovf = 0;");
                x.line("long long corner = sc_off_term(o" + ax + ", k, " + CText.longLiteral(s.stride()) + ", &ovf);");
                x.line("if (ovf) { sc_fault(F, " + x.index + ", SC_FAULT_OFFSET_OVERFLOW, " + ax + ", k); continue; }");
                x.line("if (corner < 0 || corner > " + dims[ax] + "LL - " + blk + ") { sc_fault(F, " + x.index
                        + ", SC_FAULT_BLOCK_OUT_OF_BOUNDS, " + ax + ", corner); continue; }");
                for (int a = 0; a < rank; a++) {
                    idx[a] = a == ax ? "(corner + i" + a + " - k * " + blk + ")" : "(o" + a + " + i" + a + ")";
                }
                if (store && g.count() > 1 && Math.abs(s.stride()) < blk) {
                    // overlapping blocks: the last block covering this element writes it
                    x.line("long long ta = " + idx[ax] + ";");
                    x.line("int later = 0;");
                    x.open("for (long long k2 = k + 1; k2 < " + g.count() + " && !later; k2++) {");
                    x.line("long long c2 = o" + ax + " + k2 * " + CText.longLiteral(s.stride()) + ";");
                    x.line("later = ta >= c2 && ta < c2 + " + blk + ";");
                    x.close();
                    x.line("if (later) continue;");
                }
            }
            case AccessPattern.Indirect ind -> {
                x.line("int row = index[i0];");
                x.line("if (row < 0 || row >= " + dims[0] + ") { sc_fault(F, " + x.index
                        + ", SC_FAULT_INDEX_OUT_OF_RANGE, i0, row); continue; }");
                idx[0] = "row";
                for (int a = 1; a < rank; a++) {
                    idx[a] = "(o" + a + " + i" + a + ")";
                }
                if (store && g.count() > 1) {
                    // a repeated index: the last row naming it writes it
                    x.line("int later = 0;");
                    x.open("for (long long j = i0 + 1; j < " + g.count() + " && !later; j++) {");
                    x.line("later = index[j] == row;");
                    x.close();
                    x.line("if (later) continue;");
                }
            }
        }
        x.line("long long t = " + Emit.linear(idx, t.shape().strides()) + ";");
    }

    /** Declares the origins and checks the blocks whose corner does not move with the block count. */
    private static void origins(Emit x, AccessPattern pattern, TensorDecl t, Geometry g) {
        int rank = t.shape().rank();
        int base = pattern instanceof AccessPattern.Indirect ? 1 : 0;
        var origin = pattern.originOffsets();
        if (origin.size() + base != rank) {
            throw new LoweringException("the pattern has " + origin.size() + " origin offsets for a tensor of rank " + rank);
        }
        for (int a = base; a < rank; a++) {
            var o = origin.get(a - base);
            x.origin(a, o, Integer.toString(a));
            boolean streamedAxis = pattern instanceof AccessPattern.Streamed s && s.axis() == a;
            boolean inside = o.isConstant() && o.constant() >= 0 && o.constant() <= (long) t.shape().dim(a) - g.block()[a];
            if (!streamedAxis && !inside) {
                x.line("if (o" + a + " < 0 || o" + a + " > " + t.shape().dim(a) + "LL - " + g.block()[a] + ") { sc_fault(F, "
                        + x.index + ", SC_FAULT_BLOCK_OUT_OF_BOUNDS, " + a + ", o" + a + "); return; }");
            }
        }
    }

    private static String describe(AccessPattern p, int numBlocks) {
        return switch (p) {
            case AccessPattern.Block b -> "pattern Block origin " + b.origin() + " block " + b.block();
            case AccessPattern.Streamed s -> "pattern Streamed origin " + s.origin() + " block " + s.block() + " axis "
                    + s.axis() + " stride " + s.stride() + (numBlocks > 0 ? ", " + numBlocks + " blocks" : "");
            case AccessPattern.Indirect i -> "pattern Indirect rows from '" + i.indexBuffer() + "', origin " + i.origin()
                    + " block " + i.block();
        };
    }

    static void load(Emit x, StageKind.Load l, String deliverySlot) {
        TensorDecl td = x.program.tensorsByName().get(l.tensor());
        if (td == null) {
            throw new LoweringException("tensor '" + l.tensor() + "' is not declared");
        }
        String outName = x.stage.outs().getFirst();
        Placed dst = x.out(outName);
        Geometry g = geometry(l.pattern(), td, l.numBlocks(), null, x);
        long n = Shape.of(g.bufferShape()).elementCount();
        if (n != dst.elements()) {
            throw new LoweringException("the pattern selects " + Shape.of(g.bufferShape()) + " but the buffer is " + dst.shape());
        }
        Placed src = x.plan.tensor(l.tensor());
        x.begin("", n, "tensor '" + l.tensor() + "' -> buffer '" + outName + "'", describe(l.pattern(), l.numBlocks()),
                l.multicast() == null ? "" : "multicast to group '" + l.multicast() + "': also delivered to its slot");
        x.pointer("src", src, false);
        x.pointer("dst", dst, true);
        if (deliverySlot != null) {
            x.pointer("slot", x.plan.extra(deliverySlot), true);
        }
        if (l.pattern() instanceof AccessPattern.Indirect ind) {
            x.pointer("index", x.in(ind.indexBuffer()), false);
        }
        origins(x, l.pattern(), td, g);
        x.open("SC_FOR_EACH(e, n) {");
        x.coordinates("e", "i", g.bufferShape());
        mapToTensor(x, l.pattern(), td, g, false);
        x.line(dst.cType() + " v = " + CText.convert(src.dtype(), dst.dtype(), "src", "t") + ";");
        x.line("dst[e] = v;");
        if (deliverySlot != null) {
            x.line("slot[e] = v;");
        }
        x.close();
        x.end();
    }

    static void store(Emit x, StageKind.Store k) {
        TensorDecl td = x.program.tensorsByName().get(k.tensor());
        if (td == null) {
            throw new LoweringException("tensor '" + k.tensor() + "' is not declared");
        }
        String inName = x.stage.ins().getFirst();
        Placed buf = x.in(inName);
        Geometry g = geometry(k.pattern(), td, -1, buf.shape(), x);
        long n = Shape.of(g.bufferShape()).elementCount();
        if (n != buf.elements()) {
            throw new LoweringException("the pattern selects " + Shape.of(g.bufferShape()) + " but the buffer is " + buf.shape());
        }
        Placed dst = x.plan.tensor(k.tensor());
        x.begin("", n, "buffer '" + inName + "' -> tensor '" + k.tensor() + "' as " + k.subRows() + "x" + k.subCols()
                + " sub-blocks (they tile each block, so each block is written whole, blocks in pattern order)",
                describe(k.pattern(), -1));
        x.pointer("src", buf, false);
        x.pointer("dst", dst, true);
        if (k.pattern() instanceof AccessPattern.Indirect ind) {
            x.pointer("index", x.in(ind.indexBuffer()), false);
        }
        origins(x, k.pattern(), td, g);
        x.open("SC_FOR_EACH(e, n) {");
        x.coordinates("e", "i", g.bufferShape());
        mapToTensor(x, k.pattern(), td, g, true);
        x.line("dst[t] = " + CText.convert(buf.dtype(), dst.dtype(), "src", "e") + ";");
        x.close();
        x.end();
    }

    /** Recv: the latest delivery of the group, from the slot of the multicast Load that made it. */
    static void recv(Emit x, StageKind.Recv r, String slotKey, String fromStage) {
        Placed slot = x.plan.extra(slotKey);
        String outName = x.stage.outs().getFirst();
        Placed dst = x.out(outName);
        if (slot.elements() != dst.elements()) {
            throw new LoweringException("group '" + r.group() + "' delivered " + slot.shape() + " but buffer '" + outName
                    + "' is " + dst.shape());
        }
        x.begin("", dst.elements(), "group '" + r.group() + "' -> buffer '" + outName + "': the delivery of stage '" + fromStage + "'");
        x.pointer("slot", slot, false);
        x.pointer("dst", dst, true);
        x.open("SC_FOR_EACH(e, n) {");
        x.line("dst[e] = " + CText.convert(slot.dtype(), dst.dtype(), "slot", "e") + ";");
        x.close();
        x.end();
    }

    /** A staged output copied into place (same dtype, a bit copy). */
    static void commit(Emit x, String buffer, Placed staging) {
        Placed dst = x.plan.buffer(buffer);
        x.begin("_commit", dst.elements(), "copies the staged value of buffer '" + buffer
                + "' into place (the stage also reads it, so its kernel wrote a staging area)");
        x.pointer("src", staging, false);
        x.pointer("dst", dst, true);
        x.open("SC_FOR_EACH(e, n) {");
        x.line("dst[e] = src[e];");
        x.close();
        x.end();
    }
}
