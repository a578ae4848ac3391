package org.stagecheck.verifier;

import java.util.Map;
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
                           Map<String, Group> groups) {

    public static ProgramIndex of(Program program) {
        return new ProgramIndex(program, program.buffersByName(), program.tensorsByName(), program.groupsByName());
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
