package org.stagecheck.verifier;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.ir.InternalRef;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * The program's declarations by name, built once so every check does O(1) look-ups and the whole
 * verification stays linear in program size. First declaration wins on repeated names (the
 * structural validator reports repeats).
 */
public record ProgramIndex(Program program, Map<String, BufferDecl> buffers, Map<String, TensorDecl> tensors,
                           Map<String, Group> groups, List<List<InternalRef>> refs) {

    public static ProgramIndex of(Program program) {
        // each stage's kind-internal references once: three checks read them, and listing them allocates
        List<List<InternalRef>> refs = new ArrayList<>(program.stages().size());
        for (Stage s : program.stages()) {
            refs.add(s.kind().internalRefs());
        }
        return new ProgramIndex(program, program.buffersByName(), program.tensorsByName(), program.groupsByName(), refs);
    }

    /** The kind-internal references of stage {@code i} (index buffer, offsets, bias, spill). */
    public List<InternalRef> refs(int i) {
        return refs.get(i);
    }

    /** The buffer named {@code name}, or null when the program declares none. */
    public BufferDecl buffer(String name) {
        return name == null ? null : buffers.get(name);
    }

    public TensorDecl tensor(String name) {
        return name == null ? null : tensors.get(name);
    }

    public Group group(String name) {
        return name == null ? null : groups.get(name);
    }
}
