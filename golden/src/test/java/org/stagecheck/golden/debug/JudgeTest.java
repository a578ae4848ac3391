package org.stagecheck.golden.debug;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.stagecheck.tensor.compare.Policy;

/** {@code diff --policy}: stage-derived by default, the value policies as before, derived refused. */
class JudgeTest {
    @Test
    void spellingsReadBack() {
        assertThat(Judge.parse("stage-derived")).isEqualTo(Judge.defaults()).isEqualTo(new Judge.StageDerived(1));
        assertThat(Judge.parse("stage-derived 4")).isEqualTo(new Judge.StageDerived(4));
        assertThat(Judge.parse("stage-derived:2.5").spelling()).isEqualTo("stage-derived 2.5");
        assertThat(Judge.defaults().spelling()).isEqualTo("stage-derived");
        assertThat(Judge.parse("exact")).isEqualTo(new Judge.ByPolicy(new Policy.Exact()));
        assertThat(Judge.parse("ulp 2").spelling()).isEqualTo("ulp 2");
        for (String s : new String[] {"stage-derived", "stage-derived 3", "exact", "ulp 4", "allclose 1e-05 1e-08", "pcc 0.999"}) {
            assertThat(Judge.parse(Judge.parse(s).spelling())).isEqualTo(Judge.parse(s));
        }
    }

    @Test
    void badSpellingsAreRefusedWithTheChoices() {
        assertThatThrownBy(() -> Judge.parse("derived")).hasMessageContaining("bounds whole runs").hasMessageContaining("stage-derived");
        assertThatThrownBy(() -> Judge.parse("stage-derived 0.5")).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> Judge.parse("stage-derived x")).hasMessageContaining("FACTOR must be a finite number at least 1, not 'x'");
        assertThatThrownBy(() -> Judge.parse("stage-derived NaN")).hasMessageContaining("FACTOR must be a finite number at least 1")
                .hasMessageNotContaining("For input string");
        assertThatThrownBy(() -> Judge.parse("pcc NaN")).hasMessageContaining("MIN must be a correlation in [-1, 1]");
        assertThatThrownBy(() -> Judge.parse("stage-derived 1 2")).hasMessageContaining("0 to 1");
        assertThatThrownBy(() -> Judge.parse("nearly")).hasMessageContaining("one of stage-derived [FACTOR], exact");
    }
}
