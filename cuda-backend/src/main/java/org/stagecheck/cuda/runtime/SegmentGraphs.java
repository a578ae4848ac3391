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
 * off for the rest of the session, the step runs eagerly, and a note names the call that failed
 * (not the end of the capture it invalidated); what the driver captured before is released.
 *
 * <p>Side branches ({@link SideBranches}, found from the dataflow): in a capture, the fork event
 * is recorded before the fork stage's first kernel, the side chain's kernels are launched on the
 * side stream, and the main stream waits for the join event before the join stage's first kernel
 * (the seed's {@code cap_side}, {@code ev_fork}, {@code ev_join}). A segment boundary never falls
 * inside a branch's span (fork to join): it moves to the branch's fork, so each graph holds whole
 * branches. Eager launches (no graphs, a fall-back, a trace) stay on the main stream, in order.
 */
final class SegmentGraphs {
    private final List<int[]> segments = new ArrayList<>();
    private Launcher.Graph[] graphs;
    private long[][] baked;
    private boolean disabled;
    private final List<String> notes = new ArrayList<>();
    private long eagerLaunches;
    private long captures;
    private long replays;
    private long recaptures;
    private long eagerFallbacks;
    private long sideForks;
    private long sideJoins;
    private long sideLaunches;
    private final LoweredProgram lowered;
    private final int segmentStages;
    private final List<Kernel> kernels;
    /** Found on the first step in graph mode (eager runs never need them): null before. */
    private List<SideBranches.Branch> branches;

    SegmentGraphs(LoweredProgram lowered, int segmentStages) {
        this.lowered = lowered;
        this.segmentStages = segmentStages;
        this.kernels = lowered.kernels();
    }

    /** Finds the side branches and cuts the kernels into segments, once. */
    private void plan() {
        if (branches != null) {
            return;
        }
        branches = SideBranches.of(lowered.program());
        int start = 0;
        for (int i = 1; i <= kernels.size(); i++) {
            boolean cut = i == kernels.size() || (segmentKey(kernels.get(i).stageIndex())
                    != segmentKey(kernels.get(start).stageIndex()));
            if (cut) {
                segments.add(new int[] {start, i});
                start = i;
            }
        }
        graphs = new Launcher.Graph[segments.size()];
        baked = new long[segments.size()][];
    }

    /** A stage's segment: its index's block of {@code segmentStages}, a stage inside a branch's span taking its fork's. */
    private long segmentKey(int stage) {
        for (SideBranches.Branch b : branches) {
            if (stage > b.fork() && stage <= b.join()) {
                return b.fork() / segmentStages;
            }
        }
        return stage / segmentStages;
    }

    List<SideBranches.Branch> branches() {
        plan();
        return branches;
    }

    int segmentCount() {
        plan();
        return segments.size();
    }

    GraphCounters counters() {
        return new GraphCounters(eagerLaunches, captures, replays, recaptures, eagerFallbacks, disabled, notes, sideForks, sideJoins,
                sideLaunches);
    }

    void countEager(int launches) {
        eagerLaunches += launches;
    }

    /** Runs every segment: replayed from its graph in graph mode, else launched kernel by kernel. */
    void run(ProgramRunner runner, boolean useGraphs) throws LaunchException {
        Launcher l = runner.launcher();
        if (!useGraphs || disabled) {
            eager(runner, new int[] {0, kernels.size()});
            return;
        }
        plan();
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
            long[] side = new long[3];
            l.beginCapture();
            try {
                for (int i = seg[0]; i < seg[1]; i++) {
                    captureLaunch(runner, i, side);
                }
                if (side[0] > side[1]) {
                    // the join stage has no kernel (the lowering stopped at a static fault before it)
                    l.join();
                    side[1]++;
                }
            } catch (LaunchException e) {
                abandon(l);
                throw e;
            }
            graphs[s] = l.endCapture();
            baked[s] = now;
            captures++;
            sideForks += side[0];
            sideJoins += side[1];
            sideLaunches += side[2];
            return true;
        } catch (LaunchException e) {
            graphs[s] = null;
            disabled = true;
            notes.add("graph capture of segment " + s + " failed (" + e.errorName() + ": " + e.getMessage()
                    + "): graph mode is off for this session; running eagerly");
            return false;
        }
    }

    /**
     * Ends a capture a failed call broke, so the stream leaves capture mode; a graph the driver
     * still makes of it is destroyed, never kept. Ending it may fail too (the driver invalidates a
     * capture a call failed in): the first failure, which the caller reports, is the cause.
     */
    private static void abandon(Launcher l) {
        try {
            l.destroy(l.endCapture());
        } catch (LaunchException e) {
            // invalidated: there is no graph to release
        }
    }

    /**
     * Records kernel {@code i}: the fork before the first kernel of a fork stage, the join before
     * the first kernel of a join stage, a side chain's kernels on the side stream. {@code side}
     * counts forks, joins and side launches recorded.
     */
    private void captureLaunch(ProgramRunner runner, int i, long[] side) throws LaunchException {
        Launcher l = runner.launcher();
        int stage = kernels.get(i).stageIndex();
        boolean firstOfStage = i == 0 || kernels.get(i - 1).stageIndex() != stage;
        Launcher.Lane lane = Launcher.Lane.MAIN;
        for (SideBranches.Branch b : branches) {
            if (firstOfStage && stage == b.join()) {
                l.join();
                side[1]++;
            }
            if (firstOfStage && stage == b.fork()) {
                l.fork();
                side[0]++;
            }
            if (b.onSide(stage)) {
                lane = Launcher.Lane.SIDE;
                side[2]++;
            }
        }
        runner.launch(i, lane);
    }

    private void eager(ProgramRunner runner, int[] seg) throws LaunchException {
        for (int i = seg[0]; i < seg[1]; i++) {
            runner.launch(i);
        }
        eagerLaunches += seg[1] - seg[0];
    }

    void destroy(Launcher l) {
        if (graphs == null) {
            return;
        }
        for (int s = 0; s < graphs.length; s++) {
            if (graphs[s] != null) {
                l.destroy(graphs[s]);
                graphs[s] = null;
            }
        }
    }
}
