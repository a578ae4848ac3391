package org.stagecheck.proptest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/** What a {@link SeededProperty} runs and what its failures say, seen through the JUnit launcher. */
class SeededPropertyTest {

    /** One finished try: its display name, status and failure (if any). */
    record Try(String name, TestExecutionResult.Status status, Throwable failure) {}

    private static List<Try> run(String method) {
        List<Try> tries = new ArrayList<>();
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectMethod(SampleProperties.class.getName() + "#" + method + "(long)")).build();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, new TestExecutionListener() {
            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (id.isTest()) {
                    tries.add(new Try(id.getDisplayName(), result.getStatus(), result.getThrowable().orElse(null)));
                }
            }
        });
        return tries;
    }

    private static List<String> names(long... seeds) {
        List<String> out = new ArrayList<>();
        for (long s : seeds) {
            out.add("seed " + s);
        }
        return out;
    }

    @Test
    void aPropertyRunsOnceForEachOfItsSeedsInOrder() {
        List<Try> tries = run("holdsForEverySeed");
        assertThat(tries).extracting(Try::name).containsExactlyElementsOf(names(Seeds.sequence(0, 7).toArray()));
        assertThat(tries).extracting(Try::status).containsOnly(TestExecutionResult.Status.SUCCESSFUL);
    }

    @Test
    void theSeedsAreTheSameOnEveryRunAndAllDifferent() {
        assertThat(Seeds.of(50).toArray()).containsExactly(Seeds.of(50).toArray()).doesNotHaveDuplicates();
        assertThat(Seeds.sequence(1, 50).toArray()).isNotEqualTo(Seeds.sequence(0, 50).toArray());
    }

    @Test
    void aFailingTryNamesItsSeedAndTheCommandThatReplaysItKeepingTheOriginalMessage() {
        List<Try> tries = run("failsOnOddSeeds");
        long[] seeds = Seeds.sequence(0, 20).toArray();
        assertThat(tries).hasSize(20);
        for (int i = 0; i < 20; i++) {
            Try t = tries.get(i);
            if ((seeds[i] & 1) == 0) {
                assertThat(t.status()).isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
            } else {
                assertThat(t.status()).isEqualTo(TestExecutionResult.Status.FAILED);
                assertThat(t.failure()).isInstanceOf(AssertionError.class)
                        .hasMessageStartingWith("seed " + seeds[i] + " failed; replay it alone with: bin/mvn25 -B -q test -pl ")
                        .hasMessageContaining("-Dtest='SampleProperties#failsOnOddSeeds' -Dstagecheck.seed=" + seeds[i] + " ")
                        .hasMessageContaining("[lowest bit]");
                assertThat(t.failure().getCause()).isInstanceOf(AssertionError.class);
            }
        }
        assertThat(tries).extracting(Try::status).contains(TestExecutionResult.Status.FAILED, TestExecutionResult.Status.SUCCESSFUL);
    }

    @Test
    void anExceptionIsReportedWithItsSeedAndKeptAsTheCause() {
        List<Try> tries = run("throwsOnEverySeed");
        long first = Seeds.sequence(0, 1).toArray()[0];
        assertThat(tries.getFirst().failure()).isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("seed " + first + " failed")
                .hasMessageEndingWith("java.lang.IllegalStateException: broken on " + first)
                .hasCauseInstanceOf(IllegalStateException.class);
    }

    @Test
    void aFailedAssumptionStaysASkipNotAFailure() {
        assertThat(run("assumesNothingHolds")).hasSize(4).extracting(Try::status).containsOnly(TestExecutionResult.Status.ABORTED);
    }

    @Test
    void theReplayPropertyRunsExactlyTheNamedSeed() {
        String before = System.getProperty(Seeds.REPLAY);
        System.setProperty(Seeds.REPLAY, "-12345");
        try {
            List<Try> tries = run("failsOnOddSeeds");
            assertThat(tries).extracting(Try::name).containsExactly("seed -12345");
            assertThat(tries.getFirst().failure()).hasMessageStartingWith("seed -12345 failed");
        } finally {
            if (before == null) {
                System.clearProperty(Seeds.REPLAY);
            } else {
                System.setProperty(Seeds.REPLAY, before);
            }
        }
    }

    @Test
    void anotherBaseGivesOtherSeeds() {
        String before = System.getProperty(Seeds.BASE);
        System.setProperty(Seeds.BASE, "7");
        try {
            assertThat(run("holdsForEverySeed")).extracting(Try::name).containsExactlyElementsOf(names(Seeds.sequence(7, 7).toArray()));
        } finally {
            if (before == null) {
                System.clearProperty(Seeds.BASE);
            } else {
                System.setProperty(Seeds.BASE, before);
            }
        }
    }
}
