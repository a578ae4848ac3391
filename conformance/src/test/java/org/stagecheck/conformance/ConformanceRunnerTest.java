package org.stagecheck.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * The runner's plumbing, with stand-in backends (this module has no evaluator): one that answers
 * each case with its own expectation passes everything; each way of going wrong fails the case
 * with a message that names it; skips are reported with their reasons.
 */
class ConformanceRunnerTest {

    /** Answers every case with its expected tensors, after {@code change}. */
    private record Echo(List<ConformanceCase> cases, UnaryOperator<Map<String, Tensor>> change) implements Backend {
        @Override
        public String name() {
            return "echo";
        }

        @Override
        public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
            ConformanceCase c = cases.stream().filter(x -> x.program() == program).findFirst().orElseThrow();
            Map<String, Tensor> out = new LinkedHashMap<>(bound);
            c.expected().forEach(x -> out.put(x.tensor(), x.value()));
            return new RunResult(change.apply(out), Map.of(), List.of(), null);
        }
    }

    @Test
    void aBackendThatProducesEveryExpectationPassesTheWholeSuite() {
        List<ConformanceCase> cases = Conformance.allCases();
        List<CaseResult> results = Conformance.of(cases).run(new Echo(cases, m -> m));
        assertThat(results).hasSize(cases.size()).allMatch(CaseResult::passed);
        assertThat(Conformance.summary(results)).isEqualTo(cases.size() + " passed, 0 failed, 0 skipped of " + cases.size() + " cases");
    }

    @Test
    void aMissingOutputFailsTheCaseNamingItAndTheStoringStage() {
        List<ConformanceCase> cases = Conformance.casesOf(Family.MATMUL);
        CaseResult r = Conformance.check(new Echo(cases, m -> {
            m.remove("out");
            return m;
        }), cases.getFirst());
        assertThat(r.failed()).isTrue();
        assertThat(r.message()).isEqualTo("case 'matmul/plain' (out[i,j] = sum over k of A[i,k]*B[k,j]): "
                + "tensor 'out' (stored by stage 'store'): the backend returned no tensor 'out'");
    }

    @Test
    void aThrowingBackendAFaultAndAMutatedBindingEachFailTheCase() {
        ConformanceCase c = Conformance.casesOf(Family.LOAD).getFirst();
        Backend throwing = new Backend() {
            public String name() {
                return "boom";
            }

            public RunResult run(Program p, Map<String, Tensor> b, Map<String, Long> q, boolean t) {
                throw new IllegalStateException("no kernel for Load");
            }
        };
        assertThat(Conformance.check(throwing, c).message())
                .isEqualTo("case 'load/block-constant-offset' (a Block reads the window at its constant corner): "
                        + "backend 'boom' threw java.lang.IllegalStateException: no kernel for Load");

        Backend faulting = new Backend() {
            public String name() {
                return "faulty";
            }

            public RunResult run(Program p, Map<String, Tensor> b, Map<String, Long> q, boolean t) {
                return new RunResult(Map.of(), Map.of(), List.of(Diagnostic.atStage("INTERNAL", 0, "load", "kind", null, "out of registers.")), "load");
            }
        };
        assertThat(Conformance.check(faulting, c).message()).contains("backend 'faulty' reported 1 fault(s), the first: INTERNAL stage #0 'load'");

        ConformanceCase fresh = Conformance.casesOf(Family.LOAD).getFirst();
        Backend mutating = new Backend() {
            public String name() {
                return "scribbler";
            }

            public RunResult run(Program p, Map<String, Tensor> b, Map<String, Long> q, boolean t) {
                b.get("kv").rawFloats()[0] = 42;
                return new Echo(List.of(fresh), m -> m).run(p, b, q, t);
            }
        };
        assertThat(Conformance.check(mutating, fresh).message()).endsWith("backend 'scribbler' modified bound tensor 'kv'");
    }

    @Test
    void skipsAreReportedWithTheirReasonAndNotRun() {
        List<ConformanceCase> cases = Conformance.allCases();
        Backend refusing = new Echo(cases, m -> {
            throw new AssertionError("a skipped case must not run");
        });
        List<CaseResult> results = Conformance.of(cases).skipping(".", "not yet").run(refusing);
        assertThat(results).allMatch(r -> r.status() == CaseResult.Status.SKIPPED && r.message().equals("not yet"));

        List<CaseResult> someSkipped = Conformance.of(cases).skipping("^function/", "fast math").run(new Echo(cases, m -> m));
        assertThat(someSkipped.stream().filter(r -> r.status() == CaseResult.Status.SKIPPED).map(CaseResult::caseName))
                .containsExactly("function/exp", "function/log", "function/sqrt", "function/rsqrt", "function/tanh", "function/sigmoid",
                        "function/recip", "function/sin", "function/cos");
    }
}
