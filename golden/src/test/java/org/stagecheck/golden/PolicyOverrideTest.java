package org.stagecheck.golden;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * A policy given at check time ({@code Golden.check}/{@code checkAll} with a policy; the CLI's
 * {@code golden check --policy}) judges every output instead of the recorded policies, and the
 * comparisons name the policy applied.
 */
class PolicyOverrideTest {
    @TempDir
    Path tmp;

    private Path mm;

    @BeforeEach
    void record() throws Exception {
        Subjects.Subject s = Subjects.examples().stream().filter(x -> x.name().equals("tiled-matmul-multicast")).findFirst().orElseThrow();
        mm = tmp.resolve("mm");
        Golden.record(s.program(), s.bound(), s.params(), RecordOptions.defaults(), mm);
    }

    /** The interpreter, with every f32 output element one ULP up and every i32 output element one more. */
    private static final class OneStepOff implements Backend {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        public String name() {
            return "one-step-off";
        }

        @Override
        public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
            runs.incrementAndGet();
            RunResult r = new Interpreter(RunOptions.defaults()).run(program, bound, params, trace);
            Map<String, Tensor> out = new LinkedHashMap<>(r.tensors());
            for (var d : program.tensors()) {
                Tensor t = out.get(d.name());
                if (t == null || bound.containsKey(d.name())) {
                    continue;
                }
                if (d.dtype() == DType.F32) {
                    float[] v = t.toFloats();
                    for (int i = 0; i < v.length; i++) {
                        v[i] = Math.nextUp(v[i]);
                    }
                    out.put(d.name(), Tensor.fromFloats(DType.F32, t.shape(), v));
                } else if (d.dtype() == DType.I32) {
                    int[] v = new int[Math.toIntExact(t.size())];
                    for (int i = 0; i < v.length; i++) {
                        v[i] = (int) t.getDouble(i) + 1;
                    }
                    out.put(d.name(), Tensor.fromInts(t.shape(), v));
                }
            }
            return new RunResult(out, r.trace(), r.faults(), r.stoppedAtStage());
        }
    }

    @Test
    void anOverrideJudgesEveryOutputInsteadOfTheRecordedPolicy() {
        OneStepOff backend = new OneStepOff();
        List<CaseResult> recorded = Golden.checkAll(List.of(mm), () -> new Actuals.FromBackend(backend), 1);
        assertThat(recorded.get(0).status()).isEqualTo(CaseResult.Status.PASS);
        assertThat(recorded.get(0).outputs().get(0).comparison().policy()).isEqualTo(new Policy.Derived(1));

        List<CaseResult> exact = Golden.checkAll(List.of(mm), () -> new Actuals.FromBackend(backend), 1, new Policy.Exact());
        assertThat(exact.get(0).status()).isEqualTo(CaseResult.Status.FAIL);
        assertThat(exact.get(0).outputs().get(0).comparison().policy()).isEqualTo(new Policy.Exact());
        assertThat(exact.get(0).outputs().get(0).comparison().summary()).startsWith("FAIL [exact]");

        List<CaseResult> ulp = Golden.checkAll(List.of(mm), () -> new Actuals.FromBackend(backend), 1, new Policy.Ulp(1));
        assertThat(ulp.get(0).status()).isEqualTo(CaseResult.Status.PASS);
        assertThat(ulp.get(0).outputs().get(0).comparison().policy()).isEqualTo(new Policy.Ulp(1));

        // a null policy is the recorded one, as without it
        assertThat(Golden.check(mm, new Actuals.FromBackend(backend), (Policy) null).status()).isEqualTo(CaseResult.Status.PASS);
    }

    @Test
    void derivedAtCheckTimeScalesTheToleranceRecordedUnderAnotherPolicy() throws Exception {
        Subjects.Subject s = Subjects.examples().stream().filter(x -> x.name().equals("tiled-matmul-multicast")).findFirst().orElseThrow();
        Path exactCase = tmp.resolve("mm-exact");
        Golden.record(s.program(), s.bound(), s.params(), RecordOptions.defaults().withPolicy(new Policy.Exact()), exactCase);
        Actuals off = new Actuals.FromBackend(new OneStepOff());
        assertThat(Golden.check(exactCase, off).status()).isEqualTo(CaseResult.Status.FAIL);
        CaseResult derived = Golden.check(exactCase, off, new Policy.Derived(1));
        assertThat(derived.status()).isEqualTo(CaseResult.Status.PASS);
        assertThat(derived.outputs().get(0).comparison().policy()).isEqualTo(new Policy.Derived(1));
    }

    @Test
    void derivedOnAFloatingOutputWithoutAToleranceFileIsBadInputBeforeTheBackendRuns() throws Exception {
        Path mf = mm.resolve(Manifest.FILE_NAME);
        String text = Files.readString(mf);
        String without = text.replaceAll(",\\s*\"tolerance\"\\s*:\\s*\"[^\"]*\"", "");
        assertThat(without).isNotEqualTo(text);
        Files.writeString(mf, without);
        OneStepOff backend = new OneStepOff();
        CaseResult r = Golden.check(mm, new Actuals.FromBackend(backend));
        assertThat(r.status()).isEqualTo(CaseResult.Status.BAD_INPUT);
        assertThat(r.message()).contains(mf.toString()).contains("/outputs/0/tolerance").contains("output 'c' (f32) has no tolerance file")
                .contains("policy 'derived' cannot judge it");
        assertThat(Golden.check(mm, new Actuals.FromBackend(backend), new Policy.Derived(2)).message()).contains("policy 'derived 2'");
        assertThat(backend.runs.get()).isZero();
        // another policy needs no tolerance file
        assertThat(Golden.check(mm, new Actuals.FromBackend(backend), new Policy.Ulp(1)).status()).isEqualTo(CaseResult.Status.PASS);
    }

    @Test
    void anIntegerOutputIsJudgedExactlyUnderDerivedAndByItsDifferenceUnderUlp() throws Exception {
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(ModelSpec.tiny(), Cut.decodeHead(), AuthorOptions.single());
        Path head = tmp.resolve("head");
        Golden.record(a.program(), a.bound(), a.params(), RecordOptions.defaults().withPolicy(new Policy.Ulp(1)), head);
        Actuals off = new Actuals.FromBackend(new OneStepOff());
        CaseResult derived = Golden.check(head, off, new Policy.Derived(1));
        assertThat(derived.status()).isEqualTo(CaseResult.Status.FAIL);
        CaseResult.OutputResult token = derived.outputs().stream().filter(o -> o.tensor().equals("next_token")).findFirst().orElseThrow();
        assertThat(token.comparison().passed()).isFalse();
        assertThat(token.comparison().dtype()).isEqualTo(DType.I32);
        assertThat(Golden.check(head, off, new Policy.Ulp(1)).status()).isEqualTo(CaseResult.Status.PASS);
    }
}
