package org.stagecheck.passcheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.proptest.Seeds;
import org.stagecheck.spec.gen.KindName;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.validate.Validator;

/**
 * Every knob of {@link GenConfig} holds for every source PassCheck draws from (random programs,
 * windows of the authored cuts, splits, the examples), checked directly on the programs; and by
 * default the real programs are drawn.
 */
@Tag("slow") // sweeps of generated programs per configuration
class GenConfigTest {
    private static final int DRAWS = 120;

    /** The programs of {@code DRAWS} tries under {@code config}, each well formed and checked by {@code check}, its seed named. */
    private static List<Generated> drawn(GenConfig config, Consumer<Generated> check) {
        Generators generators = new Generators(config, new Interpreter(RunOptions.defaults()));
        return Seeds.sequence(0, DRAWS).mapToObj(seed -> {
            Generated g = generators.draw(new SplittableRandom(seed));
            assertThat(new Validator().validate(g.program())).as("seed %d (%s): well formed", seed, g.origin()).isEmpty();
            try {
                check.accept(g);
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + " (" + g.origin() + "): " + e.getMessage(), e);
            }
            return g;
        }).toList();
    }

    private static Set<String> sources(List<Generated> gs) {
        Set<String> out = new TreeSet<>();
        for (Generated g : gs) {
            String o = g.origin();
            out.add(o.startsWith("random") ? "random" : o.startsWith("example") ? "example"
                    : o.matches("tiny .* tp [2-9].*") ? "split" : "authored");
        }
        return out;
    }

    private static Stream<DType> dtypes(Program p) {
        return Stream.concat(p.tensors().stream().map(t -> t.dtype()), p.buffers().stream().map(b -> b.dtype()));
    }

    @Test
    void byDefaultRandomProgramsAuthoredWindowsSplitsAndTheExamplesAreAllDrawn() {
        assertThat(sources(drawn(GenConfig.defaults(), g -> { }))).containsExactly("authored", "example", "random", "split");
    }

    @Test
    void theBundledExamplesAreTheRepositorysExamplesDirectory() throws Exception {
        try (Stream<Path> files = Files.list(Path.of("..", "examples"))) {
            assertThat(files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".json")).sorted().toList())
                    .isEqualTo(BundledExamples.NAMES);
        }
        assertThat(BundledExamples.all()).filteredOn(e -> e.certificate() != null).extracting(GenConfig.Example::name)
                .containsExactly("tp2-matmul-allreduce.json");
    }

    @Test
    void onlyGenericLoadAndStoreNeverYieldsAnotherKindFromAnySource() {
        Set<KindName> allowed = EnumSet.of(KindName.GENERIC, KindName.LOAD, KindName.STORE);
        List<Generated> gs = drawn(GenConfig.defaults().withKinds(KindName.GENERIC, KindName.LOAD, KindName.STORE),
                g -> g.program().stages().forEach(s -> assertThat(KindName.of(s)).isIn(allowed)));
        assertThat(sources(gs)).as("windows of real programs that fit are still drawn").contains("random", "authored");
    }

    @Test
    void onlyBf16NeverYieldsAnF32Tensor() {
        drawn(GenConfig.defaults().withDtypes(DType.BF16), g -> assertThat(dtypes(g.program())).containsOnly(DType.BF16));
    }

    @Test
    void multicastOffNeverYieldsAMulticast() {
        drawn(GenConfig.defaults().withMulticast(false), g -> {
            assertThat(g.program().groups()).isEmpty();
            assertThat(g.program().stages()).noneMatch(s -> s.kind() instanceof StageKind.Recv
                    || s.kind() instanceof StageKind.Load l && l.multicast() != null);
        });
    }

    @Test
    void splitsOffNeverYieldAnAllReduceAndOnTheyComeWithTheirCertificate() {
        drawn(GenConfig.defaults().withSplits(false), g -> {
            assertThat(g.program().stages()).noneMatch(s -> s.kind() instanceof StageKind.AllReduce);
            assertThat(g.program().machine().chips() == 1 || g.origin().startsWith("random")).isTrue();
        });
        drawn(GenConfig.defaults(), g -> {
            if (g.program().stages().stream().anyMatch(s -> s.kind() instanceof StageKind.AllReduce)) {
                assertThat(g.certificate()).as("a split carries its certificate").isNotNull();
                assertThat(g.certificate().shards()).isNotEmpty();
            }
        });
    }

    @Test
    void tpDegreesBoundEverySplit() {
        List<Generated> gs = drawn(GenConfig.defaults().withChips(1, 4).withTpDegrees(4).withWeights(1, 0, 2), g -> {
            for (Stage s : g.program().stages()) {
                if (s.kind() instanceof StageKind.AllReduce) {
                    assertThat(s.ins()).hasSize(4);
                }
            }
        });
        assertThat(gs).anyMatch(g -> g.origin().contains(" tp 4"));
    }

    @Test
    void chipsBoundEveryProgram() {
        List<Generated> one = drawn(GenConfig.defaults().withChips(1, 1), g -> assertThat(g.program().machine().chips()).isEqualTo(1));
        assertThat(sources(one)).contains("random", "authored", "example");
        drawn(GenConfig.defaults().withChips(3, 3), g -> assertThat(g.program().machine().chips()).isEqualTo(3));
    }

    @Test
    void sizesBoundTheRandomPrograms() {
        drawn(GenConfig.randomOnly().withStages(5, 15).withGrid(2).withMaxDim(3), g -> {
            assertThat(g.program().stages().size()).isBetween(5, 15);
            assertThat(g.program().machine().width()).isLessThanOrEqualTo(2);
            assertThat(g.program().machine().height()).isLessThanOrEqualTo(2);
        });
    }
}
