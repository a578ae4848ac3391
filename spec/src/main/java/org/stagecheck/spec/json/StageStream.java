package org.stagecheck.spec.json;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.ir.Stage;

/**
 * Decodes a program's stages one by one while the reader streams the {@code "stages"} array, so
 * that the positioned tree of the whole array is never built (docs/format.md, "Reading speed"),
 * and notes where each stage lies for the {@link SourceMap}.
 *
 * <p>The first stage that does not decode is remembered, not thrown: the reader goes on to the end
 * of the file, so that malformed JSON anywhere is still the error reported, and
 * {@link ProgramDecoder#program(JNode, StageStream)} throws it when it reaches the stages, after
 * the fields it checks first. The error is thus the one decoding the whole tree gives.
 */
final class StageStream implements StreamedArray {
    private static final Pointer STAGES = Pointer.ROOT.key("stages");

    private final ProgramDecoder decoder;
    private final ItemSpans spans;
    private final List<Stage> stages = new ArrayList<>();
    private JsonFormatException firstError;
    private JNode.JArray placeholder;

    StageStream(ProgramDecoder decoder, ItemSpans spans) {
        this.decoder = decoder;
        this.spans = spans;
    }

    @Override
    public String field() {
        return "stages";
    }

    @Override
    public void item(int index, JNode item, long startByte, long endByte) {
        spans.add(item.where(), startByte, endByte);
        if (firstError != null) {
            return;
        }
        try {
            stages.add(decoder.stage(item, STAGES.index(index)));
        } catch (JsonFormatException e) {
            firstError = e;
        }
    }

    @Override
    public void ended(JNode.JArray placeholder) {
        this.placeholder = placeholder;
    }

    /**
     * The decoded stages when {@code node} is the array this stream took (the tree's
     * placeholder), null otherwise; the first stage's error is thrown here.
     */
    List<Stage> stagesOf(JNode node) throws JsonFormatException {
        if (placeholder == null || node != placeholder) {
            return null;
        }
        if (firstError != null) {
            throw firstError;
        }
        return stages;
    }

    /** Where each stage lies, for the source map. */
    ItemSpans spans() {
        return spans;
    }
}
