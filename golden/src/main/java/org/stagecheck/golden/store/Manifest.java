package org.stagecheck.golden.store;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.json.CheckpointRefs;

/**
 * The manifest of a golden case, {@code manifest.json} (docs/golden.md, "Case format"): what was
 * run (the program file and its canonical hash, inputs, parameters), what came out (expected
 * outputs with their policies and derived tolerances, an optional per-stage trace) and how
 * (provenance). Every file is relative to the case directory.
 *
 * @param checkpoint the bound tensors recorded as references into a checkpoint's safetensors files
 *                   instead of copies (docs/golden.md, "Checkpoint references"), or null when every
 *                   bound tensor has its file in {@code inputs}
 */
public record Manifest(String programFile, String programHash, Provenance provenance, Map<String, Long> params,
                       List<TensorFile> inputs, CheckpointRefs checkpoint, List<Output> outputs, List<TraceFile> trace,
                       List<String> warnings) {
    public static final String FILE_NAME = "manifest.json";
    public static final String FORMAT = "stagecheck-golden-case";
    /** The version of a case without checkpoint references (what every case was before them). */
    public static final int VERSION = 1;
    /** The version of a case with checkpoint references. */
    public static final int VERSION_WITH_CHECKPOINT = 2;

    public Manifest {
        params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        trace = List.copyOf(trace);
        warnings = List.copyOf(warnings);
    }

    /** A manifest whose bound tensors all have their files in the case. */
    public Manifest(String programFile, String programHash, Provenance provenance, Map<String, Long> params,
                    List<TensorFile> inputs, List<Output> outputs, List<TraceFile> trace, List<String> warnings) {
        this(programFile, programHash, provenance, params, inputs, null, outputs, trace, warnings);
    }

    /** The version this manifest is written with: 2 when it has checkpoint references, else 1. */
    public int version() {
        return checkpoint == null ? VERSION : VERSION_WITH_CHECKPOINT;
    }

    /**
     * @param stagecheck the version that recorded the case
     * @param evaluation how the expected values were made, e.g. {@code interp f32}
     * @param mathMode   the function budgets of the derived tolerances ({@code precise} or {@code fast})
     * @param tolerance  how the derived tolerances were made (e.g. the ensemble's sample count and
     *                   safety factor), or null for a case recorded before it was written down
     */
    public record Provenance(String stagecheck, String evaluation, String mathMode, String tolerance) {
        public Provenance(String stagecheck, String evaluation, String mathMode) {
            this(stagecheck, evaluation, mathMode, null);
        }
    }

    /** A bound tensor and its file. */
    public record TensorFile(String tensor, String file, DType dtype, Shape shape) {}

    /**
     * An expected output.
     *
     * @param tolerance the file of the per-element derived tolerance (f32, rounded up), or null
     *                  for an integer output (compared exactly by {@code derived})
     * @param basis     what set the derived tolerance's elements (e.g. {@code ensemble 60, analytic
     *                  4, exact 0}), or null
     */
    public record Output(String tensor, String file, DType dtype, Shape shape, Policy policy, String tolerance, String basis) {
        public Output(String tensor, String file, DType dtype, Shape shape, Policy policy, String tolerance) {
            this(tensor, file, dtype, shape, policy, tolerance, null);
        }
    }

    /** One traced stage output. */
    public record TraceFile(String stage, int port, String file, DType dtype, Shape shape) {}

    /** Every file inside the case the manifest names, in manifest order (a checkpoint's files are outside it). */
    public List<String> files() {
        List<String> out = new ArrayList<>();
        out.add(programFile);
        inputs.forEach(t -> out.add(t.file()));
        outputs.forEach(o -> {
            out.add(o.file());
            if (o.tolerance() != null) {
                out.add(o.tolerance());
            }
        });
        trace.forEach(t -> out.add(t.file()));
        return out;
    }
}
