package org.stagecheck.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.CaseResult;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.json.CertificateFile;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.verifier.Parent;

/** The common path through the facade alone: load, validate, run, verify, golden record and check. */
class StagecheckTest {
    private static final Path EXAMPLES = Path.of("..", "examples");
    private static final Path CHAIN = EXAMPLES.resolve("elementwise-chain.json");
    private static final Path TP2 = EXAMPLES.resolve("tp2-matmul-allreduce.json");
    private static final Path TP2_CERT = EXAMPLES.resolve("certificates/tp2-matmul-allreduce.json");
    private static final Path TP2_UNSPLIT = EXAMPLES.resolve("unsplit/tp2-matmul-allreduce.json");

    @TempDir
    Path tmp;

    /** x[0] = 0, x[1] = 10, x[2] = 1, the rest 0; bias[0] = 1.5, the rest 0. */
    private static Map<String, Tensor> chainInputs() {
        float[] x = new float[32];
        x[1] = 10f;
        x[2] = 1f;
        float[] bias = new float[8];
        bias[0] = 1.5f;
        return Map.of("x", Tensor.fromFloats(DType.F32, Shape.of(4, 8), x), "bias", Tensor.fromFloats(DType.F32, Shape.of(1, 8), bias));
    }

    @Test
    void a_program_loads_validates_and_runs_on_the_reference() throws Exception {
        LoadedProgram chain = Stagecheck.load(CHAIN);
        assertThat(chain.program().name()).isEqualTo("elementwise-chain");
        assertThat(chain.validate().ok()).isTrue();
        RunResult r = chain.run(Stagecheck.reference(), chainInputs(), Map.of());
        assertThat(r.ok()).as("%s", r.faults()).isTrue();
        Tensor y = r.tensor("y");
        // y = bf16(min(silu(x) + bias, 4))
        assertThat(y.getFloat(0)).isEqualTo(1.5f);                              // silu(0) + 1.5
        assertThat(y.getFloat(1)).isEqualTo(4.0f);                              // silu(10) clamped
        assertThat((double) y.getFloat(2)).isCloseTo(0.7310586, within(4e-3)); // silu(1), rounded to bf16
        assertThat(y.getFloat(3)).isZero();
    }

    @Test
    void a_missing_binding_is_a_fault_in_the_result_not_an_exception() throws Exception {
        Map<String, Tensor> onlyX = new HashMap<>(chainInputs());
        onlyX.remove("bias");
        RunResult r = Stagecheck.load(CHAIN).run(Stagecheck.reference(), onlyX, Map.of());
        assertThat(r.ok()).isFalse();
        assertThat(r.faults().getFirst().message()).contains("bias");
    }

    @Test
    void a_bad_file_is_a_checked_exception_naming_the_file_and_position() throws Exception {
        Path truncated = Files.writeString(tmp.resolve("truncated.json"), "{\n  \"format\": \"stagecheck-program\",\n  \"version\": ");
        assertThatThrownBy(() -> Stagecheck.load(truncated)).isInstanceOf(StagecheckException.class)
                .hasMessageStartingWith(truncated + ":3:")
                .hasMessageNotContaining("com.fasterxml");
        Path missing = tmp.resolve("missing.json");
        assertThatThrownBy(() -> Stagecheck.load(missing)).isInstanceOf(StagecheckException.class)
                .hasMessage(missing + ": no such file: " + missing);
        // a certificate is not a program
        assertThatThrownBy(() -> Stagecheck.load(TP2_CERT)).isInstanceOf(StagecheckException.class).hasMessageStartingWith(TP2_CERT.toString());
        assertThatThrownBy(() -> Stagecheck.loadCertificate(CHAIN)).isInstanceOf(StagecheckException.class).hasMessageStartingWith(CHAIN.toString());
    }

    @Test
    void a_diagnostic_is_placed_at_the_line_and_column_of_its_field() throws Exception {
        List<String> lines = Files.readAllLines(CHAIN);
        int silu = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains("\"id\": \"silu\"")) {
                silu = i;
            }
        }
        // the silu stage reads a buffer nobody declared
        lines.set(silu, lines.get(silu).replace("\"ins\": [\"x_buf\"]", "\"ins\": [\"nowhere\"]"));
        Path broken = Files.write(tmp.resolve("broken.json"), lines);
        Validation v = Stagecheck.load(broken).validate();
        assertThat(v.ok()).isFalse();
        PlacedDiagnostic first = v.diagnostics().getFirst();
        assertThat(first.position().file()).isEqualTo(broken.toString());
        assertThat(first.position().pos().line()).isEqualTo(silu + 1);
        assertThat(first.render()).startsWith(broken + ":" + (silu + 1) + ":").contains("nowhere");
    }

    @Test
    void a_split_verifies_against_its_unsplit_parent_and_a_bias_added_twice_does_not() throws Exception {
        CertificateFile cert = Stagecheck.loadCertificate(TP2_CERT);
        Program unsplit = Stagecheck.load(TP2_UNSPLIT).program();
        Verification ok = Stagecheck.load(TP2).verify(cert, Parent.unsplit(unsplit));
        assertThat(ok.holds()).as("%s", ok.codes()).isTrue();
        assertThat(ok.json()).contains("\"format\" : \"stagecheck-verify-report\"").contains("\"program\" : \"" + TP2 + "\"")
                .contains("compared with the unsplit parent's");

        Path twice = Files.writeString(tmp.resolve("bias-twice.json"),
                Files.readString(TP2).replace("\"expr\": \"add(in0, in1)\"", "\"expr\": \"add(add(in0, in1), in1)\""));
        LoadedProgram biasTwice = Stagecheck.load(twice);
        assertThat(biasTwice.verify(cert, Parent.none()).holds()).as("consistent on every chip, so alone it holds").isTrue();
        Verification against = biasTwice.verify(cert, Parent.unsplit(unsplit));
        assertThat(against.codes()).isNotEmpty().containsOnly("LOGICAL_OUTPUT_DIFFERS");
        assertThat(against.diagnostics().getFirst().position().file()).isEqualTo(twice.toString());
        assertThat(against.diagnostics().getFirst().position().pos().known()).isTrue();
    }

    @Test
    void a_one_chip_parent_of_a_one_chip_program_is_what_the_caller_says() throws Exception {
        LoadedProgram chain = Stagecheck.load(CHAIN);
        Verification asUnsplit = chain.verify((org.stagecheck.spec.cert.Certificate) null, Parent.unsplit(chain.program()));
        assertThat(asUnsplit.holds()).isTrue();
        assertThat(asUnsplit.json()).contains("compared with the unsplit parent's");
        Verification asRemap = chain.verify((org.stagecheck.spec.cert.Certificate) null, Parent.remap(chain.program()));
        assertThat(asRemap.holds()).isTrue();
        assertThat(asRemap.json()).contains("compared with the parent under the identity map").doesNotContain("compared with the unsplit parent's");
    }

    @Test
    void a_recorded_case_passes_on_the_reference_and_fails_on_a_wrong_backend() throws Exception {
        LoadedProgram chain = Stagecheck.load(CHAIN);
        Path caseDir = tmp.resolve("chain");
        chain.recordGolden(chainInputs(), Map.of(), caseDir);
        assertThat(Files.isRegularFile(caseDir.resolve("program.json"))).isTrue();

        CaseResult right = Stagecheck.goldenCheck(caseDir, Stagecheck.reference());
        assertThat(right.status()).as(right.message()).isEqualTo(CaseResult.Status.PASS);

        CaseResult wrong = Stagecheck.goldenCheck(caseDir, offByOneInY(Stagecheck.reference()));
        assertThat(wrong.status()).isEqualTo(CaseResult.Status.FAIL);
        assertThat(wrong.outputs()).singleElement().satisfies(o -> assertThat(o.tensor()).isEqualTo("y"));

        assertThat(Stagecheck.goldenCheck(tmp.resolve("no-case"), Stagecheck.reference()).status()).isEqualTo(CaseResult.Status.BAD_INPUT);
        assertThatThrownBy(() -> chain.recordGolden(chainInputs(), Map.of(), caseDir)).isInstanceOf(StagecheckException.class)
                .hasMessageContaining(caseDir.toString());
    }

    /** {@code backend} with 1 added to the first element of its output y: a backend with a bug. */
    private static Backend offByOneInY(Backend backend) {
        return new Backend() {
            @Override
            public String name() {
                return "off-by-one";
            }

            @Override
            public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
                RunResult r = backend.run(program, bound, params, trace);
                Map<String, Tensor> tensors = new HashMap<>(r.tensors());
                Tensor y = r.tensor("y");
                float[] values = y.toFloats();
                values[0] += 1f;
                tensors.put("y", Tensor.fromFloats(y.dtype(), y.shape(), values));
                return new RunResult(tensors, r.trace(), r.faults(), r.stoppedAtStage());
            }
        };
    }

    @Test
    void a_golden_case_and_an_inputs_directory_are_inputs_of_a_run() throws Exception {
        LoadedProgram chain = Stagecheck.load(CHAIN);
        Path caseDir = tmp.resolve("chain-case");
        chain.recordGolden(chainInputs(), Map.of(), caseDir);
        RunResult fromCase = chain.run(Stagecheck.reference(), caseDir);
        RunResult direct = chain.run(Stagecheck.reference(), chainInputs(), Map.of());
        assertThat(fromCase.ok()).as("%s", fromCase.faults()).isTrue();
        assertThat(fromCase.tensor("y").toFloats()).containsExactly(direct.tensor("y").toFloats());

        Path dir = Files.createDirectory(tmp.resolve("inputs"));
        org.stagecheck.tensor.npy.Npy.write(dir.resolve("x.npy"), chainInputs().get("x"));
        assertThatThrownBy(() -> chain.run(Stagecheck.reference(), dir)).isInstanceOf(StagecheckException.class)
                .hasMessageContaining("bias");
    }

    @Test
    void backends_are_found_by_name_and_an_unknown_name_lists_the_known_ones() throws Exception {
        assertThat(Stagecheck.backend("interp").name()).isEqualTo(Stagecheck.reference().name()).isEqualTo("interp");
        assertThatThrownBy(() -> Stagecheck.backend("nope")).isInstanceOf(StagecheckException.class)
                .hasMessageContaining("nope").hasMessageContaining("interp");
    }

    /** A backend that implements only {@code run}, as a user's might: it counts the runs it is handed. */
    private static final class CountingBackend implements Backend {
        int runs;

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
            runs++;
            return new RunResult(Map.of(), Map.of(), List.of(), null);
        }
    }

    @Test
    void a_users_backend_never_sees_an_ill_formed_program_or_ill_fitting_inputs() throws Exception {
        Path bad = tmp.resolve("bad-chain.json");
        // the bias buffer one column short: the validator's findings, before anything runs
        Files.writeString(bad, Files.readString(CHAIN).replace(
                "{\"name\": \"bias_buf\", \"dtype\": \"f32\", \"shape\": [1, 8]",
                "{\"name\": \"bias_buf\", \"dtype\": \"f32\", \"shape\": [1, 7]"));
        LoadedProgram badChain = Stagecheck.load(bad);
        assertThat(badChain.validate().ok()).isFalse();
        CountingBackend user = new CountingBackend();
        RunResult refused = badChain.run(user, chainInputs(), Map.of());
        assertThat(refused.ok()).isFalse();
        assertThat(refused.faults()).isEqualTo(badChain.run(Stagecheck.reference(), chainInputs(), Map.of()).faults());
        assertThat(refused.faults().stream().map(d -> d.code()).toList()).isEqualTo(badChain.validate().codes());

        LoadedProgram chain = Stagecheck.load(CHAIN);
        Map<String, Tensor> wrongShape = new HashMap<>(chainInputs());
        wrongShape.put("x", Tensor.fromFloats(DType.F32, Shape.of(8, 4), new float[32]));
        RunResult unbound = chain.run(user, wrongShape, Map.of());
        assertThat(unbound.faults()).isNotEmpty().isEqualTo(chain.run(Stagecheck.reference(), wrongShape, Map.of()).faults());
        assertThat(user.runs).isZero();

        assertThat(chain.run(user, chainInputs(), Map.of()).ok()).isTrue();
        assertThat(user.runs).isEqualTo(1);
    }
}
