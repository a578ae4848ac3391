package org.stagecheck.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

class TensorTest {
    @Test
    void fromFloatsToI32TruncatesSaturatesAndMapsNanToZero() {
        Tensor t = Tensor.fromFloats(DType.I32, Shape.of(5), new float[] {2.9f, -2.9f, 1e10f, -1e10f, Float.NaN});
        assertThat(t.toInts()).containsExactly(2, -2, Integer.MAX_VALUE, Integer.MIN_VALUE, 0);
    }

    @Test
    void bitEqualsSeesSignedZerosAndFloat64Ness() {
        Tensor plus = Tensor.fromFloats(DType.F32, Shape.of(1), new float[] {0f});
        Tensor minus = Tensor.fromFloats(DType.F32, Shape.of(1), new float[] {-0f});
        assertThat(plus.bitEquals(minus)).isFalse();
        assertThat(plus.bitEquals(Tensor.fromDoubles(DType.F32, Shape.of(1), new double[] {0}))).isFalse();
        assertThat(plus.bitEquals(Tensor.fromFloats(DType.F32, Shape.of(1), new float[] {0f}))).isTrue();
        assertThat(plus.bitEquals(plus.reshaped(Shape.of(1, 1)))).isFalse();
    }

    @Test
    void theChecksumIsStableAndCoversDtypeAndShape() {
        Tensor t = Tensor.fromInts(Shape.of(2), new int[] {1, 2});
        assertThat(t.checksum()).isEqualTo(Tensor.fromInts(Shape.of(2), new int[] {1, 2}).checksum()).hasSize(64);
        assertThat(t.checksum()).isNotEqualTo(t.reshaped(Shape.of(1, 2)).checksum());
        assertThat(t.checksum()).isNotEqualTo(Tensor.fromFloats(DType.F32, Shape.of(2), new float[] {Float.intBitsToFloat(1), Float.intBitsToFloat(2)}).checksum());
    }

    @Test
    void valuesAreCopiedOnTheWayIn() {
        float[] v = {1, 2};
        Tensor t = Tensor.fromFloats(DType.F32, Shape.of(2), v);
        v[0] = 9;
        assertThat(t.getFloat(0)).isEqualTo(1f);
        assertThatThrownBy(() -> Tensor.fromFloats(DType.F32, Shape.of(3), v)).isInstanceOf(IllegalArgumentException.class);
    }
}
