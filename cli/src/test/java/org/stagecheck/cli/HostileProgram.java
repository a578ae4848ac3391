package org.stagecheck.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The elementwise-chain example with its tensor names and a stage id replaced: a fixture for path-safety tests. */
final class HostileProgram {
    private HostileProgram() {
    }

    /** Renames output {@code y}, input {@code x} and stage {@code silu}; writes the program to {@code file}. */
    static Path write(Path file, String output, String input, String stageId) throws IOException {
        ObjectMapper m = new ObjectMapper();
        ObjectNode p = (ObjectNode) m.readTree(Files.readString(Path.of("../examples/elementwise-chain.json")));
        for (var t : p.withArray("tensors")) {
            String name = t.get("name").asText();
            ((ObjectNode) t).put("name", name.equals("y") ? output : name.equals("x") ? input : name);
        }
        for (var s : p.withArray("stages")) {
            ObjectNode st = (ObjectNode) s;
            if (st.get("id").asText().equals("silu")) {
                st.put("id", stageId);
            }
            ObjectNode kind = (ObjectNode) st.get("kind");
            if (kind.has("tensor")) {
                String t = kind.get("tensor").asText();
                kind.put("tensor", t.equals("y") ? output : t.equals("x") ? input : t);
            }
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, m.writerWithDefaultPrettyPrinter().writeValueAsString(p));
        return file;
    }
}
