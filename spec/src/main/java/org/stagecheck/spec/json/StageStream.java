package org.stagecheck.spec.json;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.stagecheck.spec.concurrent.Beside;
import org.stagecheck.spec.ir.Stage;

/**
 * Decodes a program's stages one by one while the reader streams the {@code "stages"} array, so
 * that the positioned tree of the whole array is never built (docs/format.md, "Reading speed"),
 * and notes where each stage lies for the {@link SourceMap}.
 *
 * <p>The reading thread records each stage's tokens on a {@link TokenTape}. The first
 * {@value #INLINE} stages are built into trees and decoded on the reading thread at once; past
 * them a second thread builds and decodes the stages, in order, from tapes of {@value #BATCH}
 * handed over through a bounded queue (and handed back to be written again), while the reading
 * thread goes on tokenizing. When that queue is full (the second thread is behind), the reading
 * thread builds the trees of its tape itself and hands over the trees, so the two threads share
 * the work whichever is the slower. The result is the same either way: the same stages in the
 * same order, the same error.
 *
 * <p>The first stage that does not decode is remembered, not thrown: the reader goes on to the end
 * of the file, so that malformed JSON anywhere is still the error reported, and
 * {@link ProgramDecoder#program(JNode, StageStream)} throws it when it reaches the stages, after
 * the fields it checks first. The error is thus the one decoding the whole tree gives. A key
 * repeated in a stage's object is found when that stage's tree is built, on either thread, and
 * thrown by {@link #item} or {@link #ended}; the reader then reads the file again with Jackson's
 * own check, whose first error is the one reported.
 */
final class StageStream implements StreamedArray, AutoCloseable {
    private static final Pointer STAGES = Pointer.ROOT.key("stages");
    /** Stages decoded on the reading thread before a second thread is worth starting. */
    static final int INLINE = 4096;
    static final int BATCH = 256;
    /** Tapes waiting for the decoding thread at most (the tokens read ahead of it stay bounded). */
    private static final int QUEUED = 16;

    private final ProgramDecoder decoder;
    private final ItemSpans spans;
    private final int inline;
    private final int batchSize;
    private final Function<Runnable, Thread> threads;
    /** Written by the reading thread, then by the decoding thread once it runs; read after it ended. */
    private final List<Stage> stages = new ArrayList<>();
    private JsonFormatException firstError;
    /** The first key met twice in a stage's object, by whichever thread built its tree; read after it ended. */
    private DuplicateKeyException duplicate;
    private JNode.JArray placeholder;
    /** Builds the trees of the stages decoded on the reading thread. */
    private final TreeBuilder here = new TreeBuilder(null, true);

    /** What the reading thread hands the decoding thread: a run of stages, as tokens or as trees, or the end. */
    private sealed interface Batch permits Tokens, Trees, End {}

    /** Stages recorded on a tape, whose trees the decoding thread builds. */
    private record Tokens(TokenTape tape) implements Batch {}

    /** Stages whose trees the reading thread built. */
    private record Trees(JNode[] trees) implements Batch {}

    /** No stage follows. */
    private record End() implements Batch {}

    private final BlockingQueue<Batch> batches = new ArrayBlockingQueue<>(QUEUED);
    /** Tapes the decoding thread has read, to be written again. */
    private final BlockingQueue<TokenTape> free = new ArrayBlockingQueue<>(QUEUED + 2);
    /** The tape the reading thread records on. */
    private TokenTape tape = new TokenTape();
    /** The decoding thread, once started; what it throws beside a stage's format error (a defect) is rethrown at the end. */
    private Beside decoding;
    /** Set when the decoding thread could not be started: every stage is then decoded on the reading thread. */
    private boolean noThread;
    /** How many batches the reading thread built the trees of (the decoding thread was behind). */
    private int treeBatches;

    StageStream(ProgramDecoder decoder, ItemSpans spans) {
        this(decoder, spans, INLINE, BATCH);
    }

    /** With {@code inline} stages decoded on the reading thread, and batches of {@code batchSize} past them (tests use small ones). */
    StageStream(ProgramDecoder decoder, ItemSpans spans, int inline, int batchSize) {
        this(decoder, spans, inline, batchSize, Beside.platform("stagecheck-decode-stages"));
    }

    /** With the decoding thread made by {@code threads} (tests give one that cannot start). */
    StageStream(ProgramDecoder decoder, ItemSpans spans, int inline, int batchSize, Function<Runnable, Thread> threads) {
        this.decoder = decoder;
        this.spans = spans;
        this.inline = inline;
        this.batchSize = batchSize;
        this.threads = threads;
    }

    @Override
    public String field() {
        return "stages";
    }

    @Override
    public TokenTape tape() {
        return tape;
    }

    @Override
    public void item(int index, long where, long startByte, long endByte) throws DuplicateKeyException {
        spans.add(where, startByte, endByte);
        if (index >= inline && !noThread && decoding == null && !start(index)) {
            // no thread to be had (the process is at its limit): this stage and the rest are decoded here
            noThread = true;
        }
        if (decoding == null) {
            // the tape holds this stage alone
            try {
                buildAndDecode(here, index, tape.item(0));
            } finally {
                tape.clear();
            }
            return;
        }
        if (tape.items() == batchSize) {
            handTape();
        }
    }

    /**
     * Hands the current tape's stages to the decoding thread: as tokens while it keeps up, as
     * trees built here when its queue is full (the reading thread would otherwise wait).
     */
    private void handTape() throws DuplicateKeyException {
        if (batches.remainingCapacity() > 0) {
            hand(new Tokens(tape));
            TokenTape next = free.poll();
            tape = next != null ? next : new TokenTape();
            return;
        }
        JNode[] trees = new JNode[tape.items()];
        try {
            for (int k = 0; k < trees.length; k++) {
                trees[k] = build(here, tape.item(k));
            }
        } finally {
            tape.clear();
        }
        treeBatches++;
        hand(new Trees(trees));
    }

    /** How many batches of stages the reading thread built the trees of, because the decoding thread was behind. */
    int treeBatchesBuiltWhileReading() {
        return treeBatches;
    }

    /** Builds the tree of {@code item}, stage {@code index}, and decodes it unless an earlier stage did not decode. */
    private void buildAndDecode(TreeBuilder builder, int index, TokenTape.Item item) throws DuplicateKeyException {
        decode(index, build(builder, item));
    }

    private static JNode build(TreeBuilder builder, TokenTape.Item item) throws DuplicateKeyException {
        try {
            return builder.build(item);
        } catch (java.io.IOException | JsonFormatException e) {
            // the tape holds tokens the parser accepted: building a tree of them cannot fail so
            throw new IllegalStateException("a recorded stage's tokens did not make a tree", e);
        }
    }

    /** Decodes {@code tree}, stage {@code index}, unless an earlier stage did not decode. */
    private void decode(int index, JNode tree) {
        if (firstError != null) {
            return;
        }
        try {
            stages.add(decoder.stage(tree, STAGES.index(index)));
        } catch (JsonFormatException e) {
            firstError = e;
        }
    }

    /** Starts the decoding thread, {@code first} the index of its first stage; false when no thread could be started. */
    private boolean start(int first) {
        decoding = Beside.tryStart(() -> {
            TreeBuilder builder = new TreeBuilder(null, true);
            int index = first;
            while (true) {
                Batch batch;
                try {
                    batch = batches.take();
                } catch (InterruptedException e) {
                    throw new IllegalStateException("decoding the stages was interrupted", e);
                }
                switch (batch) {
                    case End _ -> {
                        return;
                    }
                    case Trees(JNode[] trees) -> {
                        for (JNode tree : trees) {
                            decode(index++, tree);
                        }
                    }
                    case Tokens(TokenTape items) -> {
                        for (int k = 0; k < items.items(); k++) {
                            try {
                                buildAndDecode(builder, index++, items.item(k));
                            } catch (DuplicateKeyException e) {
                                // the file is read again for the error: nothing past this stage matters
                                duplicate = e;
                                return;
                            }
                        }
                        items.clear();
                        free.offer(items);
                    }
                }
            }
        }, threads);
        return decoding != null;
    }

    /**
     * Queues {@code items} for the decoding thread, waiting while the queue is full; drops them
     * once that thread has ended (it failed, or met a repeated key: {@link #ended} says which).
     */
    private void hand(Batch items) {
        boolean interrupted = false;
        try {
            while (decoding.running()) {
                try {
                    if (batches.offer(items, 50, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void ended(JNode.JArray placeholder) throws DuplicateKeyException {
        this.placeholder = placeholder;
        if (decoding != null) {
            if (tape.items() > 0) {
                hand(new Tokens(tape)); // the rest of the array
            }
            hand(new End());
            decoding.join();
        }
        if (duplicate != null) {
            throw duplicate;
        }
    }

    /**
     * Ends the decoding thread when the reading stopped before the array's end (malformed JSON
     * after it started): the tapes not decoded are dropped. Nothing to do once the array ended.
     */
    @Override
    public void close() {
        if (decoding != null && decoding.running()) {
            batches.clear();
            hand(new End());
            decoding.awaitEnd();
        }
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
