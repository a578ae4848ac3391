package org.stagecheck.interp;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * The buffer reuse a compiler's allocator does: a buffer whose every access comes after the last
 * access of another buffer with the same declaration (core, dtype, shape) takes that buffer's
 * name, so one core buffer holds a run of values one after the other. A buffer may also take the
 * name of one that the same stage reads last and does not write (an in-place stage, out = f(in)).
 * A buffer read before any stage writes it (a spill that reads as +0) keeps its own name.
 *
 * <p>The program computes the same values (every stage reads all it reads before it writes), but
 * the evaluator now meets every way in which a value could be overwritten while something still
 * refers to it: a Slice's window of a buffer that a later stage writes again, a spill that a
 * later product overwrites, a stage whose output buffer is its input.
 */
final class BufferReuse {
    private BufferReuse() {
    }

    /** The program with its buffers coalesced as above (declarations of merged names dropped). */
    static Program coalesce(Program p) {
        Map<String, BufferDecl> decls = p.buffersByName();
        Map<String, Integer> firstWrite = new LinkedHashMap<>();
        Map<String, Integer> lastAccess = new HashMap<>();
        Set<String> readBeforeWrite = new HashSet<>();
        List<Set<String>> writtenAt = new ArrayList<>();
        List<Stage> stages = p.stages();
        for (int i = 0; i < stages.size(); i++) {
            Stage st = stages.get(i);
            for (String r : st.buffersRead()) {
                if (!firstWrite.containsKey(r)) {
                    readBeforeWrite.add(r);
                }
                lastAccess.put(r, i);
            }
            Set<String> writes = new HashSet<>(st.outs());
            if (st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.MatMul mm && mm.spill() != null) {
                writes.add(mm.spill());
            }
            for (String w : writes) {
                firstWrite.putIfAbsent(w, i);
                lastAccess.put(w, i);
            }
            writtenAt.add(writes);
        }
        // physical buffers: name -> (last access of the values it held so far)
        Map<String, Integer> physLast = new HashMap<>();
        Map<String, String> map = new HashMap<>();
        List<String> physicals = new ArrayList<>();
        for (Map.Entry<String, Integer> e : firstWrite.entrySet()) {
            String b = e.getKey();
            int w = e.getValue();
            BufferDecl d = decls.get(b);
            String chosen = null;
            if (d != null && !readBeforeWrite.contains(b)) {
                for (String phys : physicals) {
                    BufferDecl pd = decls.get(phys);
                    int last = physLast.get(phys);
                    boolean free = last < w || (last == w && !writtenAt.get(w).contains(phys) && !mapsTo(map, writtenAt.get(w), phys));
                    if (free && !readBeforeWrite.contains(phys) && Objects.equals(pd.site(), d.site()) && pd.dtype() == d.dtype()
                            && pd.shape().equals(d.shape())) {
                        chosen = phys;
                        break;
                    }
                }
            }
            if (chosen == null) {
                physicals.add(b);
                physLast.put(b, lastAccess.get(b));
            } else {
                map.put(b, chosen);
                physLast.put(chosen, lastAccess.get(b));
            }
        }
        Program renamed = p.withStages(p.stages().stream().map(s -> s.remapBuffers(n -> map.getOrDefault(n, n))).toList());
        return renamed.withBuffers(p.buffers().stream().filter(b -> !map.containsKey(b.name())).toList());
    }

    /** Whether a buffer written at the stage is already mapped onto {@code phys}. */
    private static boolean mapsTo(Map<String, String> map, Set<String> written, String phys) {
        for (String w : written) {
            if (phys.equals(map.get(w))) {
                return true;
            }
        }
        return false;
    }

    /** How many buffer names the coalescing merged away. */
    static int merged(Program original, Program coalesced) {
        return original.buffers().size() - coalesced.buffers().size();
    }
}
