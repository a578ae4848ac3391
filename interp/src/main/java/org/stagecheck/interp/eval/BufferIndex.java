package org.stagecheck.interp.eval;

import java.util.HashMap;
import java.util.Map;

import org.stagecheck.spec.ir.BufferDecl;

/**
 * The declared buffers of a program, numbered: a run keeps its buffer values in an array by these
 * numbers, so that a read or write is one lookup of the name. Made once per prepared program and
 * shared (read-only) by its runs.
 */
public final class BufferIndex {
    private final Map<String, Integer> positions;
    private final BufferDecl[] decls;

    public BufferIndex(Map<String, BufferDecl> buffers) {
        this.positions = new HashMap<>(buffers.size() * 2);
        this.decls = new BufferDecl[buffers.size()];
        int i = 0;
        for (Map.Entry<String, BufferDecl> e : buffers.entrySet()) {
            positions.put(e.getKey(), i);
            decls[i++] = e.getValue();
        }
    }

    /** The number of buffer {@code name}, or -1 when it is not declared. */
    int position(String name) {
        Integer p = positions.get(name);
        return p == null ? -1 : p;
    }

    BufferDecl decl(int position) {
        return decls[position];
    }

    int size() {
        return decls.length;
    }
}
