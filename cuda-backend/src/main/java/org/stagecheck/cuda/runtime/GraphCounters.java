package org.stagecheck.cuda.runtime;

import java.util.List;

/**
 * What graph mode did so far in one session (brief, "CUDA backend"; the seed's {@code SegState}
 * counters): kernel launches made eagerly, graphs captured, graph replays, recaptures of stale
 * graphs, steps or segments that fell back to eager launches, and the notes that say why (a
 * failed capture, a reallocated buffer). The side stream ({@link SideBranches}): forks and joins
 * recorded into captured graphs and the kernels captured on the side stream, counted per capture
 * (a replay runs a graph's forks and joins again without counting them).
 */
public record GraphCounters(long eagerLaunches, long captures, long replays, long recaptures, long eagerFallbacks,
                            boolean graphsDisabled, List<String> notes, long sideForks, long sideJoins, long sideLaunches) {
    public GraphCounters {
        notes = List.copyOf(notes);
    }

    /** Counters without side-stream activity. */
    public GraphCounters(long eagerLaunches, long captures, long replays, long recaptures, long eagerFallbacks,
                         boolean graphsDisabled, List<String> notes) {
        this(eagerLaunches, captures, replays, recaptures, eagerFallbacks, graphsDisabled, notes, 0, 0, 0);
    }

    /** One line for logs and the command line. */
    public String summary() {
        return "eager launches " + eagerLaunches + ", graph captures " + captures + ", replays " + replays
                + ", recaptures " + recaptures + ", eager fall-backs " + eagerFallbacks
                + ", side-stream forks " + sideForks + ", joins " + sideJoins + " (" + sideLaunches + " side launches)"
                + (graphsDisabled ? " (graph mode off)" : "");
    }
}
