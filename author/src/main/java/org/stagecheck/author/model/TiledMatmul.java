package org.stagecheck.author.model;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.author.build.ProgramBuilder;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;

/**
 * The cut writer's matmul against a weight, tiled by output columns over a chip's cores
 * (docs/author.md, "Lowering"). An activation spread over a rectangle of cores once is reused by
 * every later matmul of the same tile count (q, k and v read the same normed input).
 */
final class TiledMatmul {
    private final ProgramBuilder b;
    private final BoundTensors bound;
    private final int gridWidth;
    private final int gridHeight;
    /** Activation buffers already spread over a rectangle of cores, keyed by buffer and tile count. */
    private final Map<String, Map<Site, String>> spreads = new HashMap<>();

    TiledMatmul(ProgramBuilder b, BoundTensors bound, int gridWidth, int gridHeight) {
        this.b = b;
        this.bound = bound;
        this.gridWidth = gridWidth;
        this.gridHeight = gridHeight;
    }

    /**
     * {@code x} (on core (0,0)) times weight tensor {@code weight} ({@code [K, N]}), tiled by output
     * columns over T cores of the chip (T the largest divisor of N that fits the grid as a
     * rectangle of whole rows or part of the first row). With T = 1 it runs on core (0,0). Else
     * x is stored to a scratch tensor and multicast from (0,0) over the rectangle; core t loads
     * columns {@code [t*N/T, (t+1)*N/T)} of the weight, multiplies, and stores its tile into a
     * scratch {@code [rows, N]}, which core (0,0) loads back whole. The product of a row shard
     * (a partial, split programs only) is computed on (0,0) whole: see docs/author.md, "Split".
     */
    String matmul(String hint, ChipState s, String x, String weight) {
        Shape ws = b.tensorDecl(weight).shape();
        int kDim = ws.dim(0);
        int n = ws.dim(1);
        // A row shard's product is a partial; a certificate can declare only weight-shaped
        // tensors partial, so a partial never goes through a scratch tensor: it stays on (0,0).
        int tiles = bound.isRowShard(weight) ? 1 : tiles(n);
        if (tiles == 1) {
            String w = b.loadAll(hint + ".w", s.home, weight);
            return b.matmul(hint, x, w, false);
        }
        int rows = b.shape(x).dim(0);
        int tileN = n / tiles;
        Rect rect = new Rect(0, 0, Math.min(tiles, gridWidth), (tiles + gridWidth - 1) / gridWidth);
        Map<Site, String> spread = spreads.computeIfAbsent(x + "@" + tiles, key -> {
            String act = b.scratch(hint + ".act", DType.F32, b.shape(x), s.chip);
            b.storeAll(hint + ".act", x, act);
            return b.loadMulticast(hint + ".act", s.home, act, rect);
        });
        String out = b.scratch(hint + ".out", DType.F32, Shape.of(rows, n), s.chip);
        for (int t = 0; t < tiles; t++) {
            Site core = new Site(s.chip, t % gridWidth, t / gridWidth);
            String wt = b.loadBlock(hint + ".w" + t, core, weight,
                    List.of(Offset.constant(0), Offset.constant((long) t * tileN)), Shape.of(kDim, tileN));
            String yt = b.matmul(hint + ".t" + t, spread.get(core), wt, false);
            b.storeBlock(hint + ".t" + t, yt, out, List.of(Offset.constant(0), Offset.constant((long) t * tileN)));
        }
        return b.loadAll(hint, s.home, out);
    }

    /** Column tiles for an output of width n: the largest divisor of n that forms a rectangle of cores. */
    private int tiles(int n) {
        int cores = gridWidth * gridHeight;
        for (int t = Math.min(cores, n); t > 1; t--) {
            if (n % t == 0 && (t <= gridWidth || t % gridWidth == 0)) {
                return t;
            }
        }
        return 1;
    }
}
