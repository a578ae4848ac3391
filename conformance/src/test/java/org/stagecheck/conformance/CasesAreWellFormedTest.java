package org.stagecheck.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.Tensor;

/**
 * Every case is a sound unit: its program is well-formed (the validator accepts it, so every
 * backend runs it: there is no case outside the contract), its bindings and parameters fit the declarations, and every expected tensor
 * is a declared output or state tensor of the same dtype and shape.
 */
class CasesAreWellFormedTest {
    private static final List<ConformanceCase> CASES = Conformance.allCases();

    @Test
    void namesAreUniqueAndTheSuiteIsNotTrivial() {
        Set<String> seen = new HashSet<>();
        for (ConformanceCase c : CASES) {
            assertThat(seen.add(c.name())).as("duplicate case name %s", c.name()).isTrue();
        }
        assertThat(CASES).hasSizeGreaterThan(100);
        for (Family f : Family.values()) {
            assertThat(Conformance.casesOf(f)).as("family %s", f).isNotEmpty().allMatch(c -> c.family() == f);
        }
    }

    @TestFactory
    Stream<DynamicTest> eachCaseIsSound() {
        return CASES.stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
            List<Diagnostic> findings = new Validator().validate(c.program());
            assertThat(findings).as("validator findings").isEmpty();
            Map<String, TensorDecl> tensors = c.program().tensorsByName();
            for (Map.Entry<String, Tensor> e : c.bound().entrySet()) {
                TensorDecl d = tensors.get(e.getKey());
                assertThat(d).as("bound tensor %s is declared", e.getKey()).isNotNull();
                assertThat(e.getValue().dtype()).isEqualTo(d.dtype());
                assertThat(e.getValue().shape()).isEqualTo(d.shape());
            }
            for (TensorDecl d : tensors.values()) {
                if (d.role().isBoundBeforeRun()) {
                    assertThat(c.bound()).as("tensor %s of role %s is bound", d.name(), d.role()).containsKey(d.name());
                }
            }
            for (Param p : c.program().params()) {
                assertThat(c.params()).containsKey(p.name());
                assertThat(c.params().get(p.name())).isBetween(p.min(), p.max());
            }
            assertThat(c.params().keySet()).isEqualTo(c.program().paramsByName().keySet());
            for (Expected x : c.expected()) {
                TensorDecl d = tensors.get(x.tensor());
                assertThat(d).as("expected tensor %s is declared", x.tensor()).isNotNull();
                assertThat(d.role()).isIn(TensorRole.OUTPUT, TensorRole.STATE);
                assertThat(x.value().dtype()).isEqualTo(d.dtype());
                assertThat(x.value().shape()).isEqualTo(d.shape());
            }
        }));
    }

    @Test
    void onlyTranscendentalOutputsHaveAnUlpTolerance() {
        for (ConformanceCase c : CASES) {
            for (Expected x : c.expected()) {
                if (x.tolerance() instanceof Tolerance.Ulps) {
                    assertThat(c.family()).as("%s/%s", c.name(), x.tensor()).isEqualTo(Family.FUNCTION);
                }
            }
        }
    }
}
