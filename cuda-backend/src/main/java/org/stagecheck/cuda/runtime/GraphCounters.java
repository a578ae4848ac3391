package org.stagecheck.cuda.runtime;

import java.util.List;

/**
 * What graph mode did so far in one session (brief, "CUDA backend"; the seed's {@code SegState}
 * counters): kernel launches made eagerly, graphs captured, graph replays, recaptures of stale
 * graphs, steps or segments that fell back to eager launches, and the notes that say why (a
 * failed capture, a reallocated buffer).
 */
public record GraphCounters(long eagerLaunches, long captures, long replays, long recaptures, long eagerFallbacks,
                            boolean graphsDisabled, List<String> notes) {
    public GraphCounters {
        notes = List.copyOf(notes);
    }

    /** One line for logs and the command line. */
    public String summary() {
        return "eager launches " + eagerLaunches + ", graph captures " + captures + ", replays " + replays
                + ", recaptures " + recaptures + ", eager fall-backs " + eagerFallbacks
                + (graphsDisabled ? " (graph mode off)" : "");
    }
}
