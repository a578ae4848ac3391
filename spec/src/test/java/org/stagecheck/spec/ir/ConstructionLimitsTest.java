package org.stagecheck.spec.ir;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.json.OffsetSyntax;
import org.stagecheck.spec.json.TextSyntaxException;

/** Values that could be built but not written and read back are refused at construction. */
class ConstructionLimitsTest {
    @Test
    void anOffsetCannotHoldLongMinValue() {
        assertThatThrownBy(() -> Offset.constant(Long.MIN_VALUE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Offset(0, List.of(new Offset.Term.OfParam(Long.MIN_VALUE, "pos"))))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OffsetSyntax.parse("-9223372036854775807 - 1")).isInstanceOf(TextSyntaxException.class);
    }

    @Test
    void anElementIndexAxisCannotBeNegative() {
        assertThatThrownBy(() -> new Expr.Index(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
