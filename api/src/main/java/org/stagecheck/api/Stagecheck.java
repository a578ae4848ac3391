package org.stagecheck.api;

import java.nio.file.Path;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.Backends;
import org.stagecheck.backend.UnknownBackendException;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.CaseResult;
import org.stagecheck.golden.Golden;
import org.stagecheck.spec.json.CertificateFile;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.ProgramFile;

/**
 * The entry point for a Java caller: read a program, validate it, run it, verify its
 * certificate, record and check golden cases, with a handful of imports.
 *
 * <pre>{@code
 * import java.nio.file.Path;
 * import java.util.Map;
 * import org.stagecheck.api.LoadedProgram;
 * import org.stagecheck.api.Stagecheck;
 * import org.stagecheck.api.StagecheckException;
 * import org.stagecheck.backend.RunResult;
 * import org.stagecheck.spec.ir.DType;
 * import org.stagecheck.spec.ir.Shape;
 * import org.stagecheck.tensor.Tensor;
 *
 * LoadedProgram chain = Stagecheck.load(Path.of("examples/elementwise-chain.json")); // throws StagecheckException
 * if (!chain.validate().ok()) {
 *     chain.validate().diagnostics().forEach(d -> System.err.println(d.render()));
 *     return;
 * }
 * Map<String, Tensor> bound = Map.of(
 *         "x", Tensor.fromFloats(DType.F32, Shape.of(4, 8), new float[32]),
 *         "bias", Tensor.fromFloats(DType.F32, Shape.of(1, 8), new float[8]));
 * RunResult result = chain.run(Stagecheck.reference(), bound, Map.of());
 * chain.recordGolden(bound, Map.of(), Path.of("golden/chain"));
 * boolean passes = Stagecheck.goldenCheck(Path.of("golden/chain"), myBackend).passed();
 * }</pre>
 *
 * Verification: {@link LoadedProgram#verify} with {@link #loadCertificate} and
 * {@link org.stagecheck.verifier.Parent}.
 */
public final class Stagecheck {
    private Stagecheck() {
    }

    /**
     * Reads a program file (docs/format.md) with its source map.
     *
     * @throws StagecheckException the file is missing, unreadable, not JSON or not a program; the
     *                             message names the file and, where known, the line and column
     */
    public static LoadedProgram load(Path programJson) throws StagecheckException {
        try {
            return new LoadedProgram(ProgramFile.read(programJson));
        } catch (JsonFormatException e) {
            throw new StagecheckException(e.messageIn(programJson), e);
        }
    }

    /**
     * Reads a certificate file (docs/format.md, "Certificates") with its source map.
     *
     * @throws StagecheckException the file is missing, unreadable, not JSON or not a certificate
     */
    public static CertificateFile loadCertificate(Path certificateJson) throws StagecheckException {
        try {
            return CertificateFile.read(certificateJson);
        } catch (JsonFormatException e) {
            throw new StagecheckException(e.messageIn(certificateJson), e);
        }
    }

    /** The reference interpreter (brief, "Semantics") as a {@link Backend}, with default options. */
    public static Backend reference() {
        return Backends.named("interp");
    }

    /**
     * The backend registered as {@code name}, with its default options: {@code interp}, which this
     * artifact brings; {@code cuda}, {@code cuda-emu} and {@code cuda-fake} when {@code stagecheck-cuda-backend} is on
     * the path too; or a user's own, registered as a {@link org.stagecheck.backend.BackendProvider}.
     *
     * @throws StagecheckException no backend of that name is on the class or module path
     */
    public static Backend backend(String name) throws StagecheckException {
        try {
            return Backends.named(name);
        } catch (UnknownBackendException e) {
            throw new StagecheckException(e.getMessage(), e);
        }
    }

    /**
     * Checks the golden case in {@code caseDir} ({@link LoadedProgram#recordGolden}, {@code stagecheck
     * golden record}) against {@code backend}: the case's program is run on it with the recorded
     * inputs and parameters, and each output is compared under its recorded policy. Never throws:
     * a case that cannot be read is a {@link CaseResult.Status#BAD_INPUT} result with its message.
     */
    public static CaseResult goldenCheck(Path caseDir, Backend backend) {
        return Golden.check(caseDir, new Actuals.FromBackend(backend));
    }
}
