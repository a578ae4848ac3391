package org.stagecheck.golden.tolerance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.CaseResult;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.Tensor;

/**
 * Inputs the ensemble's other tests do not cover (review of the conforming ensemble, issue 20).
 */
class EnsembleAdversarialTest {
    @TempDir
    Path tmp;

    /** One Generic stage from an f32 input {@code x} [1, n] to an output {@code y} of {@code dtype}. */
    static Program oneGeneric(String expr, String dtype, int n) throws Exception {
        String json = """
                {"format": "stagecheck-program", "version": 1, "name": "adv",
                 "machine": {"chips": 1, "width": 1, "height": 1}, "params": [],
                 "tensors": [
                  {"name": "x", "dtype": "f32", "shape": [1, N], "chip": 0, "role": "input"},
                  {"name": "y", "dtype": "DT", "shape": [1, N], "chip": 0, "role": "output"}],
                 "buffers": [
                  {"name": "xb", "dtype": "f32", "shape": [1, N], "site": [0, 0, 0]},
                  {"name": "yb", "dtype": "DT", "shape": [1, N], "site": [0, 0, 0]}],
                 "groups": [],
                 "stages": [
                  {"id": "load", "site": [0, 0, 0], "ins": [], "outs": ["xb"],
                   "kind": {"type": "Load", "tensor": "x", "pattern": {"type": "block", "origin": [0, 0], "block": [1, N]}, "numBlocks": 1}},
                  {"id": "g", "site": [0, 0, 0], "ins": ["xb"], "outs": ["yb"],
                   "kind": {"type": "Compute", "op": {"type": "generic", "expr": "EXPR"}}},
                  {"id": "store", "site": [0, 0, 0], "ins": ["yb"], "outs": [],
                   "kind": {"type": "Store", "tensor": "y", "pattern": {"type": "block", "origin": [0, 0], "block": [1, N]}, "subBlocks": [1, 1]}}]}
                """.replace("N", Integer.toString(n)).replace("DT", dtype).replace("EXPR", expr);
        return new ProgramCodec().read(json);
    }

    /**
     * An i32 output truncated from a float product: 0.7f x 10 is 6.99999988 in float64 and rounds
     * to 7.0 in f32, so a conforming float64 backend truncates to 6 where the reference has 7.
     * The ensemble perturbs floating stage outputs only and cannot see this; the case must name
     * the element (it used to say nothing) and leave the certain ones (2.5 truncates to 2 under
     * any rounding) unnamed.
     */
    @Test
    void anIntegerTruncatedNearABoundaryIsNamed() throws Exception {
        Program p = oneGeneric("i32(mul(in0, 10.0))", "i32", 4);
        Map<String, Tensor> bound = Map.of("x", Tensor.fromFloats(org.stagecheck.spec.ir.DType.F32, Shape.of(1, 4), new float[] {0.7f, 0.25f, 0.7f, -0.25f}));
        Manifest m = Golden.record(p, bound, Map.of(), RecordOptions.defaults(), tmp.resolve("case"));
        assertThat(m.warnings()).anySatisfy(w -> assertThat(w).contains("integer output 'yb'").contains("2 element(s)")
                .contains("[0, 0]").contains("[0, 2]").doesNotContain("[0, 1]"));
        // the float64 backend really does differ there: the note is not noise
        Map<String, Tensor> f64 = new LinkedHashMap<>();
        f64.put("y", Tensor.wrapInts(Shape.of(1, 4), new int[] {(int) (0.7f * 10.0), 2, (int) (0.7f * 10.0), -2}));
        CaseResult r = Golden.check(tmp.resolve("case"), new Actuals.FromTensors(f64));
        assertThat(r.passed()).isFalse();
        assertThat(r.outputs().getFirst().comparison().mismatches()).isEqualTo(2);
    }

    /** Far from every boundary no integer note is made. */
    @Test
    void certainIntegersMakeNoNote() throws Exception {
        Program p = oneGeneric("i32(mul(in0, 10.0))", "i32", 3);
        Map<String, Tensor> bound = Map.of("x", Tensor.fromFloats(org.stagecheck.spec.ir.DType.F32, Shape.of(1, 3), new float[] {0.25f, 0.55f, -0.45f}));
        Manifest m = Golden.record(p, bound, Map.of(), RecordOptions.defaults(), tmp.resolve("case"));
        assertThat(m.warnings()).isEqualTo(List.of());
    }

    /**
     * An f16 output at the overflow boundary: 1.0002443f x 65504 is 65519.99999 in float64 (f16
     * 65504) and 65520 in f32 (f16 +Inf, the tie going to even). The reference stores +Inf; a
     * float64 backend rounding once to f16 stores 65504 and fails on the NaN/Inf pattern, which
     * no tolerance can pass. The case used to give it a finite tolerance and say nothing.
     */
    @Test
    void anOverflowBoundaryIsNamed() throws Exception {
        Program p = oneGeneric("mul(in0, 65504.0)", "f16", 2);
        Map<String, Tensor> bound = Map.of("x", Tensor.fromFloats(org.stagecheck.spec.ir.DType.F32, Shape.of(1, 2), new float[] {1.0002443f, 0.5f}));
        Manifest m = Golden.record(p, bound, Map.of(), RecordOptions.defaults(), tmp.resolve("case"));
        assertThat(m.warnings()).anySatisfy(w -> assertThat(w).contains("output 'y': 1 element(s) are finite in some conforming samples and not in others")
                .contains("[0, 0]"));
    }

    /** An arg-max over {@code x} [1, 4] after {@code expr} (the stage's output feeds the arg-max). */
    static Program argmaxAfter(String expr) throws Exception {
        String json = """
                {"format": "stagecheck-program", "version": 1, "name": "am",
                 "machine": {"chips": 1, "width": 1, "height": 1}, "params": [],
                 "tensors": [
                  {"name": "x", "dtype": "f32", "shape": [1, 4], "chip": 0, "role": "input"},
                  {"name": "y", "dtype": "i32", "shape": [1, 1], "chip": 0, "role": "output"}],
                 "buffers": [
                  {"name": "xb", "dtype": "f32", "shape": [1, 4], "site": [0, 0, 0]},
                  {"name": "gb", "dtype": "f32", "shape": [1, 4], "site": [0, 0, 0]},
                  {"name": "am", "dtype": "i32", "shape": [1, 1], "site": [0, 0, 0]}],
                 "groups": [],
                 "stages": [
                  {"id": "load", "site": [0, 0, 0], "ins": [], "outs": ["xb"],
                   "kind": {"type": "Load", "tensor": "x", "pattern": {"type": "block", "origin": [0, 0], "block": [1, 4]}, "numBlocks": 1}},
                  {"id": "g", "site": [0, 0, 0], "ins": ["xb"], "outs": ["gb"],
                   "kind": {"type": "Compute", "op": {"type": "generic", "expr": "EXPR"}}},
                  {"id": "argmax", "site": [0, 0, 0], "ins": ["gb"], "outs": ["am"],
                   "kind": {"type": "Compute", "op": {"type": "reduce", "fn": "argmax", "axis": 1}}},
                  {"id": "store", "site": [0, 0, 0], "ins": ["am"], "outs": [],
                   "kind": {"type": "Store", "tensor": "y", "pattern": {"type": "block", "origin": [0, 0], "block": [1, 1]}, "subBlocks": [1, 1]}}]}
                """.replace("EXPR", expr);
        return new ProgramCodec().read(json);
    }

    /**
     * Two equal values no rounding touches (an exact max) tie by the semantics' rule (the first
     * index): no note. The same values after a rounded product are a near tie another conforming
     * implementation may break the other way: named.
     */
    @Test
    void exactTiesAreCertainAndRoundedNearTiesAreNamed() throws Exception {
        Map<String, Tensor> bound = Map.of("x", Tensor.fromFloats(org.stagecheck.spec.ir.DType.F32, Shape.of(1, 4),
                new float[] {1f, 3f, 3f, 0f}));
        Manifest exact = Golden.record(argmaxAfter("max(in0, 0.0)"), bound, Map.of(), RecordOptions.defaults(), tmp.resolve("exact"));
        assertThat(exact.warnings()).noneMatch(w -> w.contains("arg-max"));
        Map<String, Tensor> near = Map.of("x", Tensor.fromFloats(org.stagecheck.spec.ir.DType.F32, Shape.of(1, 4),
                new float[] {1f, 3f, Math.nextUp(3f), 0f}));
        Manifest rounded = Golden.record(argmaxAfter("mul(in0, 1.1)"), near, Map.of(), RecordOptions.defaults(), tmp.resolve("near"));
        assertThat(rounded.warnings()).anySatisfy(w -> assertThat(w).contains("stage 'argmax'").contains("values 2 and 1"));
    }

    /**
     * "would pass with" lists only figures a policy can spell: an element that differs where the
     * derived tolerance is 0 (an exact max) or where the reference is 0 leaves out derived and
     * relative allclose, saying why for derived, and every figure it does print passes.
     */
    @Test
    void wouldPassWithListsOnlyFiguresThatCanBeUsed() throws Exception {
        Program p = oneGeneric("max(in0, 0.0)", "f32", 2);
        Map<String, Tensor> bound = Map.of("x", Tensor.fromFloats(org.stagecheck.spec.ir.DType.F32, Shape.of(1, 2), new float[] {-1f, 2f}));
        Path dir = tmp.resolve("case");
        Golden.record(p, bound, Map.of(), RecordOptions.defaults(), dir);
        Map<String, Tensor> off = Map.of("y", Tensor.fromFloats(org.stagecheck.spec.ir.DType.F32, Shape.of(1, 2), new float[] {0.5f, 2f}));
        CaseResult r = Golden.check(dir, new Actuals.FromTensors(off));
        assertThat(r.passed()).isFalse();
        String text = org.stagecheck.golden.report.TextReport.caseText(r, true);
        String line = text.lines().filter(l -> l.contains("would pass with:")).findFirst().orElseThrow();
        assertThat(line).contains("no derived scale").doesNotContain("inf");
        for (String figure : line.substring(line.indexOf(':') + 1).split("\\|")) {
            String spelling = figure.trim();
            if (spelling.startsWith("no derived")) {
                continue;
            }
            CaseResult again = Golden.check(dir, new Actuals.FromTensors(off), org.stagecheck.tensor.compare.Policy.parse(spelling));
            assertThat(again.passed()).as(spelling).isTrue();
        }
    }

    /** A recorded case directory has the permissions of any new directory here (the umask), not 0700. */
    @Test
    void aCaseDirectoryFollowsTheUmask() throws Exception {
        Program p = oneGeneric("mul(in0, 2.0)", "f32", 2);
        Map<String, Tensor> bound = Map.of("x", Tensor.fromFloats(org.stagecheck.spec.ir.DType.F32, Shape.of(1, 2), new float[] {1f, 2f}));
        Path dir = tmp.resolve("case");
        Golden.record(p, bound, Map.of(), RecordOptions.defaults(), dir);
        Path ordinary = java.nio.file.Files.createDirectory(tmp.resolve("ordinary"));
        assertThat(java.nio.file.Files.getPosixFilePermissions(dir)).isEqualTo(java.nio.file.Files.getPosixFilePermissions(ordinary));
    }
}
