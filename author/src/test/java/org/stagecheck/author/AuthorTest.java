package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.spec.validate.Validator;

/** Every cut authors a program that runs; splits run over 2 and 4 chips; refusals carry their reason. */
class AuthorTest {
    private static final ModelSpec TINY = ModelSpec.tiny();
    private final Interpreter interpreter = new Interpreter(RunOptions.defaults());

    static List<Cut> everyCut() {
        return List.of(Cut.decode(8), Cut.prefill(3, 8), Cut.batch(2, 8), Cut.forward(),
                Cut.forwardLayer(1), Cut.forwardHead(), Cut.decodeEmbed(), Cut.decodeLayer(0, 8),
                Cut.decodeHead(), Cut.batchEmbed(3), Cut.batchLayer(1, 2, 8), Cut.batchHead(2),
                Cut.prefillLayer(0, 3, 8), Cut.prefillHead(3));
    }

    static Stream<Arguments> splitCuts() {
        return Stream.of(2, 4).flatMap(tp -> Stream.of(Cut.decode(8), Cut.batch(2, 8), Cut.decodeLayer(1, 8),
                Cut.batchLayer(0, 3, 4)).map(c -> Arguments.of(c, tp)));
    }

    @ParameterizedTest
    @MethodSource("everyCut")
    void everyCutWritesAProgramThatRuns(Cut cut) {
        AuthorOutcome.Authored a = authored(cut, AuthorOptions.single());
        assertThat(a.certificate()).isNull();
        assertThat(new Validator().validate(a.program())).as("validator findings").isEmpty();
        RunResult r = interpreter.run(a.program(), a.bound(), a.params());
        assertThat(r.faults()).isEmpty();
        assertOutputsWritten(a.program(), r);
        assertEveryBoundTensorSupplied(a);
    }

    @ParameterizedTest
    @MethodSource("splitCuts")
    void everySplitCutRunsOverTpChips(Cut cut, int tp) {
        AuthorOutcome.Authored a = authored(cut, AuthorOptions.split(tp));
        assertThat(a.program().machine().chips()).isEqualTo(tp);
        assertThat(new Validator().validate(a.program())).as("validator findings").isEmpty();
        RunResult r = interpreter.run(a.program(), a.bound(), a.params());
        assertThat(r.faults()).isEmpty();
        assertOutputsWritten(a.program(), r);
        assertEveryBoundTensorSupplied(a);
        long reduces = a.program().stages().stream().filter(s -> s.kind() instanceof StageKind.AllReduce).count();
        int layers = cut.part() instanceof Cut.Part.Layer ? 1 : TINY.layers();
        assertThat(reduces).as("two all-reduces per layer").isEqualTo(2L * layers);
    }

    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 3})
    @ParameterizedTest
    void otherGridsValidateAndRunToo(int width) {
        for (Cut cut : List.of(Cut.decode(4), Cut.batch(2, 4))) {
            AuthorOutcome.Authored a = authored(cut, new AuthorOptions(2, width, 2));
            assertThat(new Validator().validate(a.program())).as("validator findings").isEmpty();
            assertThat(interpreter.run(a.program(), a.bound(), a.params()).faults()).isEmpty();
        }
    }

    @Test
    void bf16WeightsValidateRunAndSplit() {
        for (AuthorOptions o : List.of(AuthorOptions.single(), AuthorOptions.split(2))) {
            AuthorOutcome.Authored a = authored(Cut.batch(2, 4), o.withWeights(org.stagecheck.spec.ir.DType.BF16));
            assertThat(new Validator().validate(a.program())).isEmpty();
            assertThat(a.weights().values()).allSatisfy(t -> assertThat(t.dtype())
                    .isIn(org.stagecheck.spec.ir.DType.BF16, org.stagecheck.spec.ir.DType.F32));
            assertThat(a.weights().get("embed").dtype()).isEqualTo(org.stagecheck.spec.ir.DType.BF16);
            assertThat(a.weights().get("rope_cos").dtype()).isEqualTo(org.stagecheck.spec.ir.DType.F32);
            assertThat(interpreter.run(a.program(), a.bound(), a.params()).faults()).isEmpty();
        }
        assertRefused(Cut.decode(4), AuthorOptions.single().withWeights(org.stagecheck.spec.ir.DType.I32), RefusalReason.BAD_OPTION);
    }

    @Test
    void theSmallModelValidates() {
        AuthorOutcome.Authored a = authoredFor(ModelSpec.small(), Cut.decode(16), AuthorOptions.split(4));
        assertThat(new Validator().validate(a.program())).isEmpty();
    }

    @Test
    void theCertificateDeclaresTheRowShardsOfWoAndWDown() {
        AuthorOutcome.Authored a = authored(Cut.decodeLayer(1, 8), AuthorOptions.split(2));
        int q = TINY.qWidth();
        int f = TINY.ffn();
        assertThat(a.certificate().shards()).contains(
                new ShardDecl("wo.l1.c0", "wo.l1", 0, 0, q / 2, q),
                new ShardDecl("wo.l1.c1", "wo.l1", 0, q / 2, q, q),
                new ShardDecl("w_down.l1.c0", "w_down.l1", 0, 0, f / 2, f),
                new ShardDecl("w_down.l1.c1", "w_down.l1", 0, f / 2, f, f));
        // every bound tensor is declared a window of its logical tensor (replicas whole, column shards by columns)
        assertThat(a.certificate().shards()).extracting(ShardDecl::tensor)
                .containsAll(a.program().tensors().stream().filter(t -> t.role().isBoundBeforeRun()).map(t -> t.name()).toList());
        assertThat(a.certificate().shards()).filteredOn(d -> d.tensor().startsWith("w_gate.l1.c1"))
                .containsExactly(new ShardDecl("w_gate.l1.c1", "w_gate.l1", 1, f / 2, f, f));
        assertThat(a.weights().get("wo.l1.c1").shape()).isEqualTo(Shape.of(q / 2, TINY.hidden()));
        // a shard is exactly the rows of the unsplit weight
        float[] whole = Weights.all(TINY, 0).get("wo.l1").toFloats();
        float[] shard = a.weights().get("wo.l1.c1").toFloats();
        assertThat(shard[0]).isEqualTo(whole[(q / 2) * TINY.hidden()]);
    }

    @Test
    void theEmbeddingIsAnIndirectLoadAndMatmulsAreMulticast() {
        Program p = authored(Cut.decode(8), AuthorOptions.single()).program();
        assertThat(p.stages()).anySatisfy(s -> assertThat(s.kind()).isInstanceOfSatisfying(StageKind.Load.class,
                l -> assertThat(l.tensor()).isEqualTo("embed")));
        assertThat(p.groups()).isNotEmpty();
        long recvs = p.stages().stream().filter(s -> s.kind() instanceof StageKind.Recv).count();
        assertThat(recvs).isPositive();
        assertThat(p.paramsByName()).containsKey("pos");
    }

    @Test
    void authoringIsDeterministicAndTheProgramRoundTrips() throws JsonFormatException {
        ProgramCodec codec = new ProgramCodec();
        AuthorOutcome.Authored a = authored(Cut.batch(2, 8), AuthorOptions.split(2));
        AuthorOutcome.Authored b = authored(Cut.batch(2, 8), AuthorOptions.split(2));
        assertThat(codec.write(a.program())).isEqualTo(codec.write(b.program()));
        a.weights().forEach((n, t) -> assertThat(t.checksum()).as(n).isEqualTo(b.weights().get(n).checksum()));
        assertThat(codec.read(codec.writeString(a.program()))).isEqualTo(a.program());
    }

    @Test
    void refusalsAreValuesWithTheirReason() {
        assertRefused(Cut.prefill(2, 8), AuthorOptions.split(2), RefusalReason.CUT_NOT_SPLITTABLE);
        assertRefused(Cut.decodeHead(), AuthorOptions.split(2), RefusalReason.CUT_NOT_SPLITTABLE);
        assertRefused(Cut.decode(8), AuthorOptions.split(3), RefusalReason.WIDTH_NOT_DIVISIBLE);
        assertRefused(Cut.decode(8), AuthorOptions.split(8), RefusalReason.WIDTH_NOT_DIVISIBLE);
        assertRefused(Cut.decodeLayer(2, 8), AuthorOptions.single(), RefusalReason.LAYER_OUT_OF_RANGE);
        assertRefused(Cut.forwardLayer(-1), AuthorOptions.single(), RefusalReason.LAYER_OUT_OF_RANGE);
        assertRefused(Cut.prefill(9, 8), AuthorOptions.single(), RefusalReason.BAD_OPTION);
        assertRefused(Cut.decode(0), AuthorOptions.single(), RefusalReason.BAD_OPTION);
        assertRefused(Cut.decode(8), new AuthorOptions(0, 2, 2), RefusalReason.BAD_OPTION);
        AuthorOutcome.Refused r = (AuthorOutcome.Refused) Author.author(TINY, Cut.decode(8), AuthorOptions.split(3));
        assertThat(r.message()).isEqualTo("tp 3 does not divide the model's heads (8), kvHeads (4) and ffn (64)");
    }

    private static void assertRefused(Cut cut, AuthorOptions options, RefusalReason reason) {
        assertThat(Author.author(TINY, cut, options)).as(cut + " " + options)
                .isInstanceOfSatisfying(AuthorOutcome.Refused.class, r -> assertThat(r.reason()).isEqualTo(reason));
    }

    static AuthorOutcome.Authored authored(Cut cut, AuthorOptions options) {
        return authoredFor(TINY, cut, options);
    }

    static AuthorOutcome.Authored authoredFor(ModelSpec spec, Cut cut, AuthorOptions options) {
        AuthorOutcome o = Author.author(spec, cut, options);
        assertThat(o).as(cut.toString()).isInstanceOf(AuthorOutcome.Authored.class);
        return (AuthorOutcome.Authored) o;
    }

    private static void assertOutputsWritten(Program p, RunResult r) {
        List<TensorDecl> outputs = p.tensors().stream().filter(t -> t.role() == TensorRole.OUTPUT).toList();
        assertThat(outputs).isNotEmpty();
        for (TensorDecl t : outputs) {
            assertThat(r.tensor(t.name())).as(t.name()).isNotNull();
            assertThat(r.tensor(t.name()).shape()).isEqualTo(t.shape());
        }
        if (r.tensor("next_token") != null) {
            assertThat(java.util.Arrays.stream(r.tensor("next_token").toInts()).boxed().toList()).allSatisfy(v -> assertThat(v).isBetween(0, TINY.vocab() - 1));
        }
    }

    private static void assertEveryBoundTensorSupplied(AuthorOutcome.Authored a) {
        Map<String, ?> bound = a.bound();
        for (TensorDecl t : a.program().tensors()) {
            assertThat(bound.containsKey(t.name())).as(t.name()).isEqualTo(t.role().isBoundBeforeRun());
            if (t.role().isBoundBeforeRun()) {
                assertThat(a.bound().get(t.name()).shape()).as(t.name()).isEqualTo(t.shape());
            }
        }
    }
}
