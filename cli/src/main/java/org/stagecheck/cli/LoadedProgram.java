package org.stagecheck.cli;

import java.nio.file.Path;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.spec.json.Pos;
import org.stagecheck.spec.json.ProgramCodec;

/** A program read from a file, with the positioned JSON tree kept to place diagnostics. */
record LoadedProgram(Path file, Program program, JNode tree) {
    /** Reads {@code file}; any format problem becomes a {@link BadInputException} naming line:column. */
    static LoadedProgram read(Path file) throws BadInputException {
        try {
            JNode tree = new JsonReader().read(file);
            return new LoadedProgram(file, new ProgramCodec().read(tree), tree);
        } catch (JsonFormatException e) {
            throw BadInputException.of(file, e);
        }
    }

    /** Line and column of the value at JSON pointer {@code pointer} (or its nearest ancestor). */
    Pos locate(String pointer) {
        return pointer == null ? Pos.UNKNOWN : JNode.at(tree, pointer).pos();
    }

    /** Where a diagnostic about this program points: this file, at its field's position. */
    Locator.Where where(String pointer) {
        return new Locator.Where(file.toString(), locate(pointer));
    }
}
