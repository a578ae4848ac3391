package org.stagecheck.reduce;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * A candidate on disk, as {@code stagecheck run DIR/program.json --inputs DIR} reads it:
 * {@code program.json}, {@code inputs.json} (the inputs manifest: tensor to file, and the
 * parameter values) and {@code tensors/t<i>.npy}, one per bound tensor. Files are numbered, not
 * named after tensors, because a tensor's name is data and never a path.
 */
public final class CandidateFiles {
    private CandidateFiles() {}

    /** Writes {@code c} into the existing, empty directory {@code dir}. */
    public static void write(Candidate c, Path dir) throws IOException {
        Files.write(dir.resolve("program.json"), new ProgramCodec().write(c.program()));
        Path tensors = Files.createDirectories(dir.resolve("tensors"));
        List<String> files = new ArrayList<>();
        int i = 0;
        for (Map.Entry<String, Tensor> e : c.bound().entrySet()) {
            String file = "t" + i++ + ".npy";
            Npy.write(tensors.resolve(file), e.getValue());
            files.add("tensors/" + file);
        }
        try (OutputStream out = Files.newOutputStream(dir.resolve("inputs.json"));
             JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("format", "stagecheck-inputs");
            g.writeNumberField("version", 1);
            g.writeObjectFieldStart("tensors");
            int k = 0;
            for (String name : c.bound().keySet()) {
                g.writeStringField(name, files.get(k++));
            }
            g.writeEndObject();
            g.writeObjectFieldStart("params");
            for (Map.Entry<String, Long> e : c.params().entrySet()) {
                g.writeNumberField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }
}
