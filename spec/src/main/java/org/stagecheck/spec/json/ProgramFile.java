package org.stagecheck.spec.json;

import java.nio.file.Path;
import java.util.Objects;
import org.stagecheck.spec.ir.Program;

/**
 * A program read from a file, with its {@link SourceMap} so that every diagnostic about it can
 * name the file, line and column of the value it is about (docs/format.md).
 *
 * <pre>{@code
 * ProgramFile pf;
 * try {
 *     pf = ProgramFile.read(Path.of("examples/chain.json"));
 * } catch (JsonFormatException e) {
 *     System.err.println(e.messageIn(Path.of("examples/chain.json"))); // chain.json:3:9: ...
 *     return;
 * }
 * SourcePosition firstStage = pf.locate("/stages/0");
 * }</pre>
 *
 * @param file      the file as the caller named it
 * @param program   the decoded program (not yet validated)
 * @param sourceMap where each of its values lies in {@code file}
 */
public record ProgramFile(Path file, Program program, SourceMap sourceMap) implements SourceLocator {
    public ProgramFile {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(program, "program");
        Objects.requireNonNull(sourceMap, "sourceMap");
    }

    /** Reads and decodes {@code file}; any problem (missing, malformed, not a program) is a {@link JsonFormatException}. */
    public static ProgramFile read(Path file) throws JsonFormatException {
        return read(file, StageStream.INLINE, StageStream.BATCH);
    }

    /** The same, the stages past the first {@code inline} decoded on a second thread in batches of {@code batch}. */
    static ProgramFile read(Path file, int inline, int batch) throws JsonFormatException {
        // the stages are decoded as they are read and their trees dropped: the source map keeps where each lies
        ProgramDecoder decoder = new ProgramDecoder();
        try (StageStream stages = new StageStream(decoder, new ItemSpans(file, "stages"), inline, batch)) {
            JNode tree = new JsonReader().read(file, stages);
            return new ProgramFile(file, decoder.program(tree, stages), new SourceMap(file.toString(), tree, stages.spans()));
        }
    }

    @Override
    public SourcePosition locate(String pointer) {
        return sourceMap.locate(pointer);
    }
}
