package org.stagecheck.author.build;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.validate.Validator;

/**
 * The builder derives output shapes and dtypes from the language's rules and refuses, under the
 * validator's code, an op the validator would refuse: what it builds validates.
 */
class ProgramBuilderRulesTest {
    private static final Site CORE = Site.of(0, 0, 0);

    private static ProgramBuilder withInputs(Shape a, Shape b) {
        ProgramBuilder pb = new ProgramBuilder("rules", new Machine(1, 1, 1));
        pb.tensor("a", DType.F32, a, 0, TensorRole.INPUT);
        pb.tensor("b", DType.BF16, b, 0, TensorRole.INPUT);
        return pb;
    }

    @Test
    void derivedShapesAreTheRulesAndTheProgramValidates() {
        ProgramBuilder pb = withInputs(Shape.of(3, 4), Shape.of(5, 4));
        String a = pb.loadAll("A", CORE, "a");
        String b = pb.loadAll("B", CORE, "b");
        String c = pb.matmul("mm", a, b, true);
        assertThat(pb.shape(c)).isEqualTo(Shape.of(3, 5));
        String idx = pb.reduce("am", ReduceFn.ARGMAX, 1, c);
        assertThat(pb.buffer(idx).dtype()).isEqualTo(DType.I32);
        assertThat(pb.shape(idx)).isEqualTo(Shape.of(3, 1));
        String joined = pb.concat("cat", 1, List.of(c, c));
        assertThat(pb.shape(joined)).isEqualTo(Shape.of(3, 10));
        pb.tensor("out", DType.F32, Shape.of(3, 10), 0, TensorRole.OUTPUT);
        pb.storeAll("out", joined, "out");
        assertThat(new Validator().validate(pb.build())).isEmpty();
    }

    @Test
    void aMatMulWhoseContractionExtentsDifferIsRefusedUnderTheValidatorsCode() {
        ProgramBuilder pb = withInputs(Shape.of(3, 4), Shape.of(5, 4));
        String a = pb.loadAll("A", CORE, "a");
        String b = pb.loadAll("B", CORE, "b");
        assertThatThrownBy(() -> pb.matmul("mm", a, b, false))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MATMUL_SHAPE");
    }

    @Test
    void aReduceOfAnAxisTheInputDoesNotHaveIsRefused() {
        ProgramBuilder pb = withInputs(Shape.of(3, 4), Shape.of(4, 2));
        String a = pb.loadAll("A", CORE, "a");
        assertThatThrownBy(() -> pb.reduce("r", ReduceFn.SUM, 2, a)).hasMessageContaining("REDUCE_AXIS");
    }

    @Test
    void aConcatOfMismatchedInputsAndAWrongSliceAreRefused() {
        ProgramBuilder pb = withInputs(Shape.of(3, 4), Shape.of(4, 2));
        String a = pb.loadAll("A", CORE, "a");
        String b = pb.loadAll("B", CORE, "b");
        assertThatThrownBy(() -> pb.concat("cat", 1, List.of(a, b))).hasMessageContaining("LAYOUT_SHAPE");
        assertThatThrownBy(() -> pb.slice("s", a, List.of(2, 0), Shape.of(2, 4))).hasMessageContaining("LAYOUT_SHAPE");
    }
}
