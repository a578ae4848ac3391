package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/**
 * A decode step's weight tiles, which the interpreter multiplies where they lie in the weight
 * tensor, are not counted twice by the run's memory estimate; in --f64 and --trace runs, which
 * copy them, they are.
 */
class MemoryEstimateTest {
    private static long bytes(org.stagecheck.spec.ir.Shape s, org.stagecheck.spec.ir.DType d) {
        return s.elementCount() * d.byteSize();
    }

    @Test
    void weightTilesAreCountedOnceInAPlainRunAndTwiceWhenCopied() {
        for (int tp : new int[] {1, 2}) {
            AuthorOutcome o = Author.author(ModelSpec.small(), Cut.decode(16), AuthorOptions.single().withTp(tp));
            Program p = ((AuthorOutcome.Authored) o).program();
            long all = 0;
            for (TensorDecl t : p.tensors()) {
                all += bytes(t.shape(), t.dtype());
            }
            for (BufferDecl b : p.buffers()) {
                all += bytes(b.shape(), b.dtype());
            }
            // the weight tiles, found here another way: buffers a Load fills with a block of many rows of a
            // weight matrix (a gather of embedding rows, an indirect Load, copies them, and the one-row
            // norm weights and rope tables are read by elementwise stages, which copy them: both counted)
            Set<String> weights = new HashSet<>();
            p.tensors().stream().filter(t -> t.role() == TensorRole.WEIGHT && t.shape().rank() == 2).forEach(t -> weights.add(t.name()));
            long tiles = 0;
            for (Stage s : p.stages()) {
                if (s.kind() instanceof StageKind.Load l && weights.contains(l.tensor()) && l.pattern() instanceof AccessPattern.Block) {
                    BufferDecl b = p.buffersByName().get(s.outs().getFirst());
                    if (b.shape().dim(0) > 1) {
                        tiles += bytes(b.shape(), b.dtype());
                    }
                }
            }
            assertThat(tiles).as("tp %d: the step has weight tiles", tp).isPositive();
            assertThat(MemoryEstimate.of(p, false, false).bytes()).as("tp %d", tp).isEqualTo(all - tiles);
            assertThat(MemoryEstimate.of(p, false, true).bytes()).as("tp %d: a trace copies them", tp).isGreaterThan(all);
        }
    }
}
