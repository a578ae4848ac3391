package org.stagecheck.cuda.runtime;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.stagecheck.cuda.lower.Kernel;
import org.stagecheck.cuda.lower.LoweredProgram;

/**
 * Graph mode, after the seed's {@code SegState} (brief, "CUDA backend"): the step's kernels are
 * cut into segments of {@code segmentStages} stages; the first step captures each segment into a
 * graph, later steps replay it. A graph bakes in its launches' argument values (chip base
 * addresses, the parameter and fault arrays), never the parameters' values, which each step
 * uploads to the parameter array, so a replay stays valid as the position moves. Before a replay
 * the baked addresses are compared with the current ones: a reallocated chip makes the graph
 * stale, and it is destroyed and captured again (counted). A capture that fails turns graph mode
 * off for the rest of the session, the step runs eagerly, and a note says so.
 */
final class SegmentGraphs {
    private final List<int[]> segments = new ArrayList<>();
    private final Launcher.Graph[] graphs;
    private final long[][] baked;
    private boolean disabled;
    private final List<String> notes = new ArrayList<>();
    private long eagerLaunches;
    private long captures;
    private long replays;
    private long recaptures;
    private long eagerFallbacks;

    SegmentGraphs(LoweredProgram lowered, int segmentStages) {
        List<Kernel> kernels = lowered.kernels();
        int start = 0;
        for (int i = 1; i <= kernels.size(); i++) {
            boolean cut = i == kernels.size() || (kernels.get(i).stageIndex() / segmentStages
                    != kernels.get(start).stageIndex() / segmentStages);
            if (cut) {
                segments.add(new int[] {start, i});
                start = i;
            }
        }
        graphs = new Launcher.Graph[segments.size()];
        baked = new long[segments.size()][];
    }

    int segmentCount() {
        return segments.size();
    }

    GraphCounters counters() {
        return new GraphCounters(eagerLaunches, captures, replays, recaptures, eagerFallbacks, disabled, notes);
    }

    void countEager(int launches) {
        eagerLaunches += launches;
    }

    /** Runs every segment: replayed from its graph in graph mode, else launched kernel by kernel. */
    void run(ProgramRunner runner, boolean useGraphs) throws LaunchException {
        Launcher l = runner.launcher();
        for (int s = 0; s < segments.size(); s++) {
            int[] seg = segments.get(s);
            if (!useGraphs || disabled) {
                eager(runner, seg);
                continue;
            }
            long[] now = runner.arguments(0);
            if (graphs[s] != null && !Arrays.equals(baked[s], now)) {
                l.destroy(graphs[s]);
                graphs[s] = null;
                recaptures++;
                notes.add("segment " + s + " was stale (a buffer it baked in was reallocated): captured again");
            }
            if (graphs[s] == null && !capture(runner, s, seg, now)) {
                eagerFallbacks++;
                eager(runner, seg);
                continue;
            }
            l.replay(graphs[s]);
            replays++;
        }
    }

    private boolean capture(ProgramRunner runner, int s, int[] seg, long[] now) {
        Launcher l = runner.launcher();
        try {
            l.beginCapture();
            try {
                for (int i = seg[0]; i < seg[1]; i++) {
                    runner.launch(i);
                }
            } finally {
                graphs[s] = l.endCapture();
            }
            baked[s] = now;
            captures++;
            return true;
        } catch (LaunchException e) {
            graphs[s] = null;
            disabled = true;
            notes.add("graph capture of segment " + s + " failed (" + e.errorName() + ": " + e.getMessage()
                    + "): graph mode is off for this session; running eagerly");
            return false;
        }
    }

    private void eager(ProgramRunner runner, int[] seg) throws LaunchException {
        for (int i = seg[0]; i < seg[1]; i++) {
            runner.launch(i);
        }
        eagerLaunches += seg[1] - seg[0];
    }

    void destroy(Launcher l) {
        for (int s = 0; s < graphs.length; s++) {
            if (graphs[s] != null) {
                l.destroy(graphs[s]);
                graphs[s] = null;
            }
        }
    }
}
