package org.stagecheck.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.GoldenException;
import org.stagecheck.golden.GoldenInputs;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.CertificateFile;
import org.stagecheck.spec.json.ProgramFile;
import org.stagecheck.spec.json.SourcePosition;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.inputs.Inputs;
import org.stagecheck.tensor.inputs.InputsException;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.report.ReportSources;

/**
 * A program read from its JSON file ({@link Stagecheck#load}), with the source map that places
 * every diagnostic about it, and the common things to do with it: validate, run, verify, record a
 * golden case.
 *
 * <pre>{@code
 * LoadedProgram chain = Stagecheck.load(Path.of("examples/elementwise-chain.json"));
 * Validation validation = chain.validate();
 * if (!validation.ok()) {
 *     validation.diagnostics().forEach(d -> System.err.println(d.render()));
 *     return;
 * }
 * Map<String, Tensor> bound = Map.of(
 *         "x", Tensor.fromFloats(DType.F32, Shape.of(4, 8), new float[32]),
 *         "bias", Tensor.fromFloats(DType.F32, Shape.of(1, 8), new float[8]));
 * RunResult result = chain.run(Stagecheck.reference(), bound, Map.of());
 * Tensor y = result.tensor("y");
 * chain.recordGolden(bound, Map.of(), Path.of("golden/chain"));
 * CaseResult check = Stagecheck.goldenCheck(Path.of("golden/chain"), myBackend);
 * }</pre>
 */
public final class LoadedProgram {
    private final ProgramFile source;

    LoadedProgram(ProgramFile source) {
        this.source = Objects.requireNonNull(source, "source");
    }

    /** The file it was read from, as the caller named it. */
    public Path file() {
        return source.file();
    }

    /** The decoded program (not yet validated). */
    public Program program() {
        return source.program();
    }

    /** The file with its source map, as the spec module reads it. */
    public ProgramFile source() {
        return source;
    }

    /** Where the value at JSON pointer {@code pointer} (or its nearest ancestor) lies in {@link #file()}. */
    public SourcePosition locate(String pointer) {
        return source.locate(pointer);
    }

    /** The structural validation ({@code stagecheck validate}'s rules), every finding placed in the file. */
    public Validation validate() {
        return new Validation(new Validator().validate(program()).stream()
                .map(d -> new PlacedDiagnostic(d, locate(d.field()))).toList());
    }

    /**
     * Runs the program once on {@code backend} ({@link Stagecheck#reference()} for the reference
     * interpreter). A bad program or binding is a fault in the result, naming the stage, never an
     * exception (the {@link Backend} contract).
     *
     * @param bound  values for the input, weight and state tensors, by tensor name
     * @param params a value for every program parameter
     */
    public RunResult run(Backend backend, Map<String, Tensor> bound, Map<String, Long> params) {
        Objects.requireNonNull(backend, "backend");
        return backend.runChecked(program(), bound, params, false);
    }

    /**
     * Runs the program once on {@code backend} with the inputs of {@code inputs}: an inputs
     * directory (one {@code .npy} file per bound tensor, an optional {@code inputs.json} with
     * parameters; docs/format.md, "Inputs manifest") or a golden case directory (its recorded
     * inputs and parameters). Every input is checked against the program's declarations before
     * the run.
     *
     * @throws StagecheckException a file is missing or unreadable, or an input does not fit its declaration
     */
    public RunResult run(Backend backend, Path inputs) throws StagecheckException {
        Objects.requireNonNull(backend, "backend");
        Inputs.Read read;
        try {
            read = GoldenInputs.read(inputs, program());
        } catch (InputsException e) {
            throw new StagecheckException(e.getMessage(), e);
        }
        return backend.runChecked(program(), read.bound(), read.params(), false);
    }

    /**
     * Checks the program's certificate (null: none) against the program and, as {@code parent}
     * says, the program it came from ({@link Parent#none()}, {@link Parent#unsplit},
     * {@link Parent#remap}). Findings in the certificate are placed nowhere: read it with
     * {@link Stagecheck#loadCertificate} and use {@link #verify(CertificateFile, Parent)} for that.
     */
    public Verification verify(Certificate certificate, Parent parent) {
        return new Verification(new Verifier().verify(program(), certificate, parent), ReportSources.of(source, null));
    }

    /** As {@link #verify(Certificate, Parent)}, with the certificate's findings placed in its file. */
    public Verification verify(CertificateFile certificate, Parent parent) {
        Objects.requireNonNull(certificate, "certificate");
        return new Verification(new Verifier().verify(program(), certificate.certificate(), parent), ReportSources.of(source, certificate));
    }

    /**
     * Records a golden case of this program into the new directory {@code caseDir}: the program,
     * the bound tensors and parameters, the reference interpreter's outputs and their derived
     * tolerances (docs/golden.md; what {@code stagecheck golden record} writes).
     *
     * @throws StagecheckException the program is not well-formed or faults, a binding is missing
     *                             or mistyped, {@code caseDir} already holds a case, or the file
     *                             system failed
     */
    public Manifest recordGolden(Map<String, Tensor> bound, Map<String, Long> params, Path caseDir) throws StagecheckException {
        try {
            return Golden.record(program(), bound, params, RecordOptions.defaults(), caseDir);
        } catch (GoldenException e) {
            throw new StagecheckException(e.getMessage(), e);
        } catch (IOException e) {
            throw new StagecheckException("cannot write the case " + caseDir + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return file() + " (" + program().name() + ")";
    }
}
