package org.stagecheck.spec.gen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.stagecheck.proptest.Seeds;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.validate.Validator;

/**
 * Every knob of {@link GenSpace} is honoured by {@link RandomPrograms#draw}: over many seeds what a
 * knob forbids never appears (checked directly, not only through {@link GenSpace#problem}), what
 * it keeps still appears, and every program is well formed with each read after its write.
 */
class GenSpaceTest {
    private static final int TRIES = 300;

    /** The programs of {@code TRIES} seeds in {@code space}, each checked by {@code check} with its seed named. */
    private static List<Generated> drawn(GenSpace space, Consumer<Generated> check) {
        return Seeds.sequence(0, TRIES).mapToObj(seed -> {
            Generated g = RandomPrograms.draw(new SplittableRandom(seed), space);
            Program p = g.program();
            assertThat(new Validator().validate(p)).as("seed %d: well formed", seed).isEmpty();
            assertThat(ProgramFacts.readBeforeWrite(p)).as("seed %d: every read after its write", seed).isEmpty();
            assertThat(space.problem(p)).as("seed %d: inside the space", seed).isNull();
            try {
                check.accept(g);
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
            }
            return g;
        }).toList();
    }

    private static Set<KindName> kinds(List<Generated> gs) {
        Set<KindName> seen = EnumSet.noneOf(KindName.class);
        gs.forEach(g -> g.program().stages().forEach(s -> seen.add(KindName.of(s))));
        return seen;
    }

    private static Set<DType> dtypes(Program p) {
        Set<DType> out = EnumSet.noneOf(DType.class);
        p.tensors().forEach(t -> out.add(t.dtype()));
        p.buffers().forEach(b -> out.add(b.dtype()));
        return out;
    }

    @Test
    void everythingAllowedMeetsEveryKind() {
        assertThat(kinds(drawn(GenSpace.everything(), g -> { }))).containsExactlyInAnyOrder(KindName.values());
    }

    @Test
    void onlyGenericLoadAndStoreNeverYieldsAnotherKind() {
        Set<KindName> allowed = EnumSet.of(KindName.GENERIC, KindName.LOAD, KindName.STORE);
        List<Generated> gs = drawn(GenSpace.everything().withKinds(allowed),
                g -> g.program().stages().forEach(s -> assertThat(KindName.of(s)).isIn(allowed)));
        assertThat(kinds(gs)).isEqualTo(allowed);
    }

    @Test
    void withoutGenericAMatMulHasNoSpillAndEveryOtherKindStillAppears() {
        Set<KindName> allowed = EnumSet.complementOf(EnumSet.of(KindName.GENERIC));
        List<Generated> gs = drawn(GenSpace.everything().withKinds(allowed),
                g -> g.program().stages().forEach(s -> assertThat(KindName.of(s)).isNotEqualTo(KindName.GENERIC)));
        assertThat(kinds(gs)).isEqualTo(allowed);
    }

    @Test
    void onlyBf16NeverYieldsAnotherDtypeNotEvenInACast() {
        drawn(GenSpace.everything().withDtypes(Set.of(DType.BF16)), g -> {
            assertThat(dtypes(g.program())).containsOnly(DType.BF16);
            assertThat(new org.stagecheck.spec.json.ProgramCodec().writeString(g.program()))
                    .doesNotContain("\"f32\"", "\"f16\"", "\"i32\"", "\"e4m3\"", "\"e5m2\"");
        });
    }

    @Test
    void f16AndI32KeepTheIndexedFragmentsAndNoF32() {
        List<Generated> gs = drawn(GenSpace.everything().withDtypes(Set.of(DType.F16, DType.I32)),
                g -> assertThat(dtypes(g.program())).isSubsetOf(DType.F16, DType.I32));
        Set<KindName> seen = kinds(gs);
        assertThat(seen).contains(KindName.SCALAR, KindName.REDUCE);
        assertThat(gs.stream().flatMap(g -> dtypes(g.program()).stream())).contains(DType.I32);
    }

    @Test
    void multicastOffNeverYieldsAMulticast() {
        drawn(GenSpace.everything().withMulticast(false), g -> {
            assertThat(g.program().groups()).isEmpty();
            for (Stage s : g.program().stages()) {
                assertThat(s.kind()).isNotInstanceOf(StageKind.Recv.class);
                if (s.kind() instanceof StageKind.Load l) {
                    assertThat(l.multicast()).isNull();
                }
            }
        });
        assertThat(kinds(drawn(GenSpace.everything(), g -> { }))).contains(KindName.RECV);
    }

    @Test
    void splitsOffNeverYieldAnAllReduceOrAShard() {
        drawn(GenSpace.everything().withTpDegrees(Set.of()), g -> {
            assertThat(g.program().stages()).noneMatch(s -> s.kind() instanceof StageKind.AllReduce);
            assertThat(g.certificate().shards()).isEmpty();
        });
    }

    @Test
    void splitsSpanExactlyTheAllowedDegreesWithTheirShards() {
        List<Generated> gs = drawn(GenSpace.everything().withChips(3, 4).withTpDegrees(Set.of(3)), g -> {
            for (Stage s : g.program().stages()) {
                if (s.kind() instanceof StageKind.AllReduce) {
                    assertThat(s.ins()).hasSize(3);
                    Set<Integer> chips = new HashSet<>();
                    s.ins().forEach(b -> chips.add(g.program().buffersByName().get(b).site().chip()));
                    assertThat(chips).hasSize(3);
                }
            }
            long reduces = g.program().stages().stream().filter(s -> s.kind() instanceof StageKind.AllReduce).count();
            // each split declares, per member chip, its replicated input and its weight shard
            assertThat(g.certificate().shards()).hasSize((int) reduces * 3 * 2);
        });
        assertThat(gs).anyMatch(g -> g.program().stages().stream().anyMatch(s -> s.kind() instanceof StageKind.AllReduce));
    }

    @Test
    void oneChipAndFourChipsAreHonoured() {
        drawn(GenSpace.everything().withChips(1, 1), g -> {
            assertThat(g.program().machine().chips()).isEqualTo(1);
            assertThat(g.program().tensors()).allMatch(t -> t.chip() == 0);
        });
        drawn(GenSpace.everything().withChips(4, 4), g -> assertThat(g.program().machine().chips()).isEqualTo(4));
    }

    @Test
    void theStageCountStaysInsideItsBoundsAndTheGridInsideItsSide() {
        drawn(GenSpace.everything().withStages(0, 12).withGrid(2), g -> {
            assertThat(g.program().stages().size()).isBetween(0, 12);
            assertThat(g.program().machine().width()).isLessThanOrEqualTo(2);
            assertThat(g.program().machine().height()).isLessThanOrEqualTo(2);
        });
        drawn(GenSpace.everything().withStages(50, 60), g -> assertThat(g.program().stages().size()).isBetween(50, 60));
    }

    @Test
    void maxDimBoundsTheExtents() {
        // a drawn extent is at most maxDim; derived ones (a concatenation reshaped to one row, a
        // contraction split over chips, a cache's rows past the position) at most 2 maxDim^2 here
        drawn(GenSpace.everything().withMaxDim(2), g -> {
            for (TensorDecl t : g.program().tensors()) {
                assertThat(t.shape().dims()).allMatch(d -> d <= 8);
            }
            for (BufferDecl b : g.program().buffers()) {
                assertThat(b.shape().dims()).allMatch(d -> d <= 8);
            }
        });
    }

    @Test
    void aSpaceWithNothingToGenerateIsRefusedWithAReason() {
        assertThatThrownBy(() -> GenSpace.everything().withKinds(Set.of(KindName.GENERIC)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kinds must include LOAD and STORE");
        assertThatThrownBy(() -> GenSpace.everything().withDtypes(Set.of(DType.I32)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a floating type");
        assertThatThrownBy(() -> GenSpace.everything().withTpDegrees(Set.of(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 2");
    }

    @Test
    void theSameGeneratorStateGivesAnEqualProgram() {
        for (long seed = 0; seed < 20; seed++) {
            assertThat(RandomPrograms.draw(new SplittableRandom(seed), GenSpace.everything()))
                    .isEqualTo(RandomPrograms.draw(new SplittableRandom(seed), GenSpace.everything()));
        }
    }
}
