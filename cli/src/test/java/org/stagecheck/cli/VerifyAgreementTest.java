package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.json.CertificateCodec;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;

/**
 * The library decides, the command renders: {@code Verifier.verify} and {@code stagecheck verify
 * --json} give the same findings (code, stage, field, buffer, message), in the same order, on every
 * example, every authored split and mutants of them.
 */
@Tag("slow")
class VerifyAgreementTest {
    @TempDir
    Path tmp;

    private record Case(String name, Program program, Certificate cert) {}

    private static List<Case> cases() throws Exception {
        List<Case> out = new ArrayList<>();
        Path ex = Path.of("../examples");
        try (var files = Files.list(ex)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                Program program = new ProgramCodec().read(Files.readString(p));
                Path c = ex.resolve("certificates").resolve(p.getFileName());
                out.add(new Case(p.getFileName().toString(), program, Files.exists(c) ? new CertificateCodec().read(Files.readString(c)) : null));
            }
        }
        ModelSpec tiny = ModelSpec.tiny();
        for (Cut cut : List.of(Cut.decode(8), Cut.batch(2, 8), Cut.decodeLayer(1, 8), Cut.batchLayer(1, 2, 8))) {
            for (int tp : new int[] {2, 4}) {
                AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(tiny, cut, AuthorOptions.split(tp));
                out.add(new Case(cut + " tp" + tp, a.program(), a.certificate()));
                out.add(new Case(cut + " tp" + tp + " tanh before the reduce", tanhBeforeFirstReduce(a.program()), a.certificate()));
                out.add(new Case(cut + " tp" + tp + " a chip left out", dropLastInputOfFirstReduce(a.program()), a.certificate()));
            }
        }
        return out;
    }

    private static int firstAllReduce(Program p) {
        for (int i = 0; i < p.stages().size(); i++) {
            if (p.stages().get(i).kind() instanceof StageKind.AllReduce) {
                return i;
            }
        }
        throw new IllegalStateException("no all-reduce");
    }

    private static Program dropLastInputOfFirstReduce(Program p) {
        List<Stage> st = new ArrayList<>(p.stages());
        int i = firstAllReduce(p);
        Stage a = st.get(i);
        List<String> ins = a.ins().subList(0, a.ins().size() - 1);
        st.set(i, new Stage(a.id(), a.site(), ins, a.outs(), StageKind.AllReduce.of(ReducePool.SUM, ((StageKind.AllReduce) a.kind()).tensor(), ins.size())));
        return p.withStages(st);
    }

    private static Program tanhBeforeFirstReduce(Program p) {
        List<Stage> st = new ArrayList<>(p.stages());
        int i = firstAllReduce(p);
        Stage a = st.get(i);
        String first = a.ins().getFirst();
        var decl = p.buffersByName().get(first);
        st.add(i, new Stage("tanh.mutant", decl.site(), List.of(first), List.of(first),
                new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.TANH, Expr.in(0))))));
        return p.withStages(st);
    }

    @Test
    void the_library_and_the_command_give_the_same_findings() throws Exception {
        int rejected = 0;
        for (Case c : cases()) {
            List<Diagnostic> lib = new Verifier().verify(c.program(), c.cert(), Parent.none()).diagnostics();
            Path prog = tmp.resolve("p.json");
            Files.write(prog, new ProgramCodec().write(c.program()));
            List<String> args = new ArrayList<>(List.of("verify", prog.toString(), "--json"));
            if (c.cert() != null) {
                Path cert = tmp.resolve("c.json");
                Files.write(cert, new CertificateCodec().write(c.cert()));
                args.addAll(List.of("--cert", cert.toString()));
            }
            CliRunner r = CliRunner.run(args.toArray(String[]::new));
            JsonNode root = new ObjectMapper().readTree(r.out());
            assertThat(r.exit()).as(c.name()).isEqualTo(lib.isEmpty() ? 0 : 1);
            assertThat(root.get("holds").asBoolean()).as(c.name()).isEqualTo(lib.isEmpty());
            List<String> cli = new ArrayList<>();
            for (JsonNode d : root.get("diagnostics")) {
                cli.add(d.get("code").asText() + "|" + (d.has("stageIndex") ? d.get("stageIndex").asInt() : -1) + "|" + (d.has("field") ? d.get("field").asText() : null)
                        + "|" + (d.has("buffer") ? d.get("buffer").asText() : null) + "|" + d.get("message").asText());
            }
            List<String> expected = lib.stream().map(d -> d.code() + "|" + d.stageIndex() + "|" + d.field() + "|" + d.buffer() + "|" + d.message()).toList();
            assertThat(cli).as(c.name()).isEqualTo(expected);
            rejected += lib.isEmpty() ? 0 : 1;
        }
        assertThat(rejected).as("the mutants are rejected").isGreaterThanOrEqualTo(16);
    }
}
