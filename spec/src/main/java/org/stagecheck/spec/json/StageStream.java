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
 * <p>The first {@value #INLINE} stages are decoded on the reading thread; past them a second
 * thread decodes the stages, in order, in batches handed over through a bounded queue, while the
 * reading thread goes on tokenizing: on a long program the two take about as long as each
 * other. The result is the same either way: the same stages in the same order, the same error.
 *
 * <p>The first stage that does not decode is remembered, not thrown: the reader goes on to the end
 * of the file, so that malformed JSON anywhere is still the error reported, and
 * {@link ProgramDecoder#program(JNode, StageStream)} throws it when it reaches the stages, after
 * the fields it checks first. The error is thus the one decoding the whole tree gives.
 */
final class StageStream implements StreamedArray, AutoCloseable {
    private static final Pointer STAGES = Pointer.ROOT.key("stages");
    /** Stages decoded on the reading thread before a second thread is worth starting. */
    static final int INLINE = 4096;
    static final int BATCH = 256;
    /** Batches waiting for the decoding thread at most (the trees read ahead of it stay bounded). */
    private static final int QUEUED = 16;
    private static final JNode[] END = new JNode[0];

    private final ProgramDecoder decoder;
    private final ItemSpans spans;
    private final int inline;
    private final int batchSize;
    private final Function<Runnable, Thread> threads;
    /** Written by the reading thread, then by the decoding thread once it runs; read after it ended. */
    private final List<Stage> stages = new ArrayList<>();
    private JsonFormatException firstError;
    private JNode.JArray placeholder;

    private final BlockingQueue<JNode[]> batches = new ArrayBlockingQueue<>(QUEUED);
    private JNode[] batch;
    private int inBatch;
    /** The decoding thread, once started; what it throws beside a stage's format error (a defect) is rethrown at the end. */
    private Beside decoding;
    /** Set when the decoding thread could not be started: every stage is then decoded on the reading thread. */
    private boolean noThread;

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
    public void item(int index, JNode item, long startByte, long endByte) {
        spans.add(item.where(), startByte, endByte);
        if (index < inline || noThread) {
            decode(index, item);
            return;
        }
        if (decoding == null && !start(index)) {
            // no thread to be had (the process is at its limit): this stage and the rest are decoded here
            noThread = true;
            decode(index, item);
            return;
        }
        batch[inBatch++] = item;
        if (inBatch == batchSize) {
            hand(batch);
            batch = new JNode[batchSize];
            inBatch = 0;
        }
    }

    private void decode(int index, JNode item) {
        if (firstError != null) {
            return;
        }
        try {
            stages.add(decoder.stage(item, STAGES.index(index)));
        } catch (JsonFormatException e) {
            firstError = e;
        }
    }

    /** Starts the decoding thread, {@code first} the index of its first stage; false when no thread could be started. */
    private boolean start(int first) {
        decoding = Beside.tryStart(() -> {
            int index = first;
            while (true) {
                JNode[] items;
                try {
                    items = batches.take();
                } catch (InterruptedException e) {
                    throw new IllegalStateException("decoding the stages was interrupted", e);
                }
                if (items == END) {
                    return;
                }
                for (JNode item : items) {
                    if (item == null) {
                        break;
                    }
                    decode(index++, item);
                }
            }
        }, threads);
        if (decoding == null) {
            return false;
        }
        batch = new JNode[batchSize];
        return true;
    }

    /**
     * Queues {@code items} for the decoding thread, waiting while the queue is full; drops them
     * once that thread has ended (it failed: {@link #ended} rethrows why).
     */
    private void hand(JNode[] items) {
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
    public void ended(JNode.JArray placeholder) {
        this.placeholder = placeholder;
        if (decoding != null) {
            if (inBatch > 0) {
                hand(batch); // the rest of the array, null past its end
            }
            hand(END);
            decoding.join();
        }
    }

    /**
     * Ends the decoding thread when the reading stopped before the array's end (malformed JSON
     * after it started): the batches not decoded are dropped. Nothing to do once the array ended.
     */
    @Override
    public void close() {
        if (decoding != null && decoding.running()) {
            batches.clear();
            hand(END);
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
