package org.stagecheck.verifier.adversarial;

import org.stagecheck.verifier.Parent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.verifier.adversarial.CorpusRuns.Verdict.AGREES;
import static org.stagecheck.verifier.adversarial.CorpusRuns.Verdict.DIFFERS;
import static org.stagecheck.verifier.adversarial.CorpusRuns.Verdict.NOT_BINDABLE;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.report.ReportJson;
import org.stagecheck.verifier.report.ReportText;

/**
 * The adversarial corpus (docs/verifier.md, "Adversarial corpus"): splits and certificates
 * written to fool the checker, in classes the mutation corpus and the campaign do not plant
 * (certificates that lie about windows, extents, axes and logical names or belong to another
 * program; a tile read one tile or one row off; parameters that choose a chip's rows; dynamic
 * offsets off by one through a {@code Scalar} stage; partials added to themselves, gated,
 * rounded through bf16; all-reduces over the wrong groups or with the wrong op; multicast
 * protocol slips; output windows that leave a gap), and right rewrites next to them (tilings,
 * affine offsets written longhand, data-parallel rows, hierarchical and commuted all-reduces,
 * dead and redundant stages, renamed buffers). Each case is a directory under
 * {@code src/test/resources/adversarial} written by {@code generate.py} there.
 *
 * <p>The table pins, per case, the distinct codes the checker reports alone and given the
 * unsplit parent ({@code holds} when none), and what the evaluator says when the split and the
 * parent run on the same inputs ({@link CorpusRuns}): a wrong case the evaluator does not show
 * wrong names why it is wrong all the same (a certificate that lies while the program is right,
 * a protocol violation). {@code wrong/} cases are all rejected given the parent; those accepted
 * alone compute another program consistently on every chip, which only the parent shows (the
 * documented limit of a check without it). {@code limit/} cases are documented limits.
 */
@Tag("slow")
class AdversarialCorpusTest {

    record Row(String name, String alone, String withParent, CorpusRuns.Verdict evaluator, String why) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final List<Row> ROWS = List.of(
            row("limit/allreduce-names-another-tensor", "holds", "holds", AGREES, "the all-reduce's tensor field names w1, its inputs are partials of w2: the field is a label the evaluator ignores and the checker derives what the inputs hold, so the right sum is accepted (ALLREDUCE_MIXED is not reported)"),
            row("limit/dead-allreduce-of-replicated-values", "REDUCE_OF_FULL", "REDUCE_OF_FULL", AGREES, "a sum all-reduce of values every chip holds whole, its result never used: rejected (REDUCE_OF_FULL is a rule about the stage, not about whether its result is read); the outputs are right"),
            row("right/all-on-chip-0-chip-1-idle", "holds", "holds", AGREES, ""),
            row("right/base", "holds", "holds", AGREES, ""),
            row("right/base-tp4", "holds", "holds", AGREES, ""),
            row("right/bias-commuted", "holds", "holds", AGREES, ""),
            row("right/bias-on-one-chip-before-reduce", "holds", "holds", AGREES, ""),
            row("right/cache-row-at-pos", "holds", "holds", AGREES, ""),
            row("right/cache-row-at-pos-written-longhand", "holds", "holds", AGREES, ""),
            row("right/cache-row-at-scalar-offset", "holds", "holds", AGREES, ""),
            row("right/column-parallel-output", "holds", "holds", AGREES, ""),
            row("right/commuted-combine", "holds", "holds", AGREES, ""),
            row("right/contraction-over-two-cores-through-scratch", "holds", "holds", AGREES, ""),
            row("right/data-parallel-rows", "holds", "holds", AGREES, ""),
            row("right/dead-stages-on-partials", "holds", "holds", AGREES, ""),
            row("right/extra-dead-stage", "holds", "holds", AGREES, ""),
            row("right/hierarchical-allreduce-crossed-groups", "holds", "holds", AGREES, ""),
            row("right/hierarchical-allreduce-tp4", "holds", "holds", AGREES, ""),
            row("right/k-tiled-partial-on-one-chip", "holds", "holds", AGREES, ""),
            row("right/multicast", "holds", "holds", AGREES, ""),
            row("right/output-garbage-then-overwritten", "holds", "holds", AGREES, ""),
            row("right/partial-in-two-column-tiles", "holds", "holds", AGREES, ""),
            row("right/partial-scratch-round-trip", "holds", "holds", AGREES, ""),
            row("right/reassociated-combine-tp4", "holds", "holds", AGREES, ""),
            row("right/redundant-recompute", "holds", "holds", AGREES, ""),
            row("right/renamed-buffers", "holds", "holds", AGREES, ""),
            row("right/replicated-on-every-chip", "holds", "holds", AGREES, ""),
            row("right/replicated-weight-rows-at-constant-offset", "holds", "holds", AGREES, ""),
            row("right/replicated-weight-rows-at-param-fixed-to-1", "holds", "holds", AGREES, ""),
            row("right/row-sum-over-column-shards", "holds", "holds", AGREES, ""),
            row("right/shard-rows-streamed-in-two-blocks", "holds", "holds", AGREES, ""),
            row("right/store-tiled-by-rows", "holds", "holds", AGREES, ""),
            row("right/transposed-weight-shards-on-axis-1", "holds", "holds", AGREES, ""),
            row("wrong/all-reduce-left-out", "PARTIAL_STORE", "PARTIAL_STORE", DIFFERS, ""),
            row("wrong/allreduce-combine-max", "ALLREDUCE_COMBINE", "ALLREDUCE_COMBINE", DIFFERS, ""),
            row("wrong/allreduce-combine-rounds-to-bf16", "ALLREDUCE_COMBINE", "ALLREDUCE_COMBINE,PARTIAL_RANGE_NARROWED,PRECISION_NARROWED", DIFFERS, ""),
            row("wrong/allreduce-group-missing-chip3", "ALLREDUCE_GAP,PARTIAL_STORE", "ALLREDUCE_GAP,PARTIAL_STORE", DIFFERS, ""),
            row("wrong/allreduce-other-partial-doubled", "ALLREDUCE_COMBINE", "ALLREDUCE_COMBINE", DIFFERS, ""),
            row("wrong/allreduce-partial-added-to-itself", "ALLREDUCE_COMBINE", "ALLREDUCE_COMBINE", DIFFERS, ""),
            row("wrong/allreduce-pool-max", "ALLREDUCE_POOL", "ALLREDUCE_POOL", DIFFERS, ""),
            row("wrong/bias-dropped-everywhere", "holds", "LOGICAL_OUTPUT_DIFFERS", DIFFERS, ""),
            row("wrong/bias-on-every-chip-before-reduce", "PARTIAL_PLUS_FULL", "PARTIAL_PLUS_FULL", DIFFERS, ""),
            row("wrong/bias-scaled-everywhere", "holds", "LOGICAL_OUTPUT_DIFFERS", DIFFERS, ""),
            row("wrong/bias-subtracted-everywhere", "holds", "LOGICAL_OUTPUT_DIFFERS", DIFFERS, ""),
            row("wrong/both-chips-other-activation", "holds", "LOGICAL_OUTPUT_DIFFERS", DIFFERS, ""),
            row("wrong/cache-row-at-pos-plus-pos-in-bounds", "holds", "LOGICAL_OUTPUT_DIFFERS", DIFFERS, ""),
            row("wrong/cache-row-at-twice-pos", "BLOCK_OUT_OF_BOUNDS", "BLOCK_OUT_OF_BOUNDS,LOGICAL_OUTPUT_DIFFERS", DIFFERS, ""),
            row("wrong/cache-row-chip1-mirrored-pos", "OUTPUT_CHIPS_DIFFER", "LOGICAL_OUTPUT_DIFFERS,OUTPUT_CHIPS_DIFFER", DIFFERS, ""),
            row("wrong/cache-row-constant-instead-of-pos", "holds", "LOGICAL_OUTPUT_DIFFERS", DIFFERS, ""),
            row("wrong/cache-row-mirrored-pos-everywhere", "holds", "LOGICAL_OUTPUT_DIFFERS", DIFFERS, ""),
            row("wrong/cache-row-scalar-offset-off-by-one-chip1", "GUARDED_BLOCK_OUT_OF_BOUNDS,OUTPUT_CHIPS_DIFFER", "GUARDED_BLOCK_OUT_OF_BOUNDS,LOGICAL_OUTPUT_DIFFERS,OUTPUT_CHIPS_DIFFER", DIFFERS, ""),
            row("wrong/cache-row-scalar-offset-off-by-one-everywhere", "GUARDED_BLOCK_OUT_OF_BOUNDS", "GUARDED_BLOCK_OUT_OF_BOUNDS,LOGICAL_OUTPUT_DIFFERS", DIFFERS, ""),
            row("wrong/cert-for-another-program", "SHARD_DECL_UNKNOWN_TENSOR", "SHARD_DECL_UNKNOWN_TENSOR", NOT_BINDABLE, "the certificate names tensors this program does not have (one finding: none of its declarations is used)"),
            row("wrong/cert-output-declared-other-logical", "holds", "LOGICAL_OUTPUT_DIFFERS,SHARD_DECL_UNKNOWN_TENSOR", DIFFERS, ""),
            row("wrong/cert-output-window-misplaced", "OUTPUT_WINDOWS_GAP", "OUTPUT_WINDOWS_GAP,SHARD_DECL_EXTENT", AGREES, "the certificate says y has 4 rows and both chips hold rows [0,2): rows [2,4) are held by no chip, and the parent's y has 2 rows; the program itself computes y right"),
            row("wrong/cert-w1-both-columns-swapped", "REDUCE_OF_FULL", "REDUCE_OF_FULL", DIFFERS, ""),
            row("wrong/cert-w1-columns-swapped", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH", DIFFERS, ""),
            row("wrong/cert-w1-wrong-axis", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH,SHARD_DECL_EXTENT", AGREES, "the certificate says w1.0 holds all 8 rows of w1 and so all its columns, but it has 4: the binding the certificate describes does not exist"),
            row("wrong/cert-w2-declared-twice-on-one-tensor", "ALLREDUCE_VIEW_MISMATCH,SHARD_DECL_DUPLICATE", "ALLREDUCE_VIEW_MISMATCH,SHARD_DECL_DUPLICATE", NOT_BINDABLE, "w2.1 has no declaration (w2.0 has two), so it is no window of the parent's tensors"),
            row("wrong/cert-w2-duplicate-slice", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH", DIFFERS, ""),
            row("wrong/cert-w2-extent-too-big", "holds", "LOGICAL_OUTPUT_DIFFERS,SHARD_DECL_EXTENT", AGREES, "the certificate gives w2 12 rows where the program contracts 8 (the parent's w2 has 8): a lie about shapes that only the parent shows; the program computes y right"),
            row("wrong/cert-w2-other-logical", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH,SHARD_DECL_UNKNOWN_TENSOR", NOT_BINDABLE, "w2.1 is declared a window of w2x, which the parent does not have"),
            row("wrong/cert-w2-shard-missing", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH", NOT_BINDABLE, "w2.1 has no declaration, so it is no window of the parent's tensors"),
            row("wrong/cert-w2-wrong-axis", "REDUCE_OF_FULL,SHARD_DECL_EXTENT", "REDUCE_OF_FULL,SHARD_DECL_EXTENT", NOT_BINDABLE, "the declared axis makes w2's shards columns, which do not have the split tensors' shape"),
            row("wrong/cert-x-rows-as-shards", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH,SHARD_DECL_EXTENT", NOT_BINDABLE, "the certificate says x has 4 rows, the parent's has 2"),
            row("wrong/chip1-loads-chip0-weights", "ALLREDUCE_VIEW_MISMATCH,TENSOR_WRONG_CHIP", "ALLREDUCE_VIEW_MISMATCH,TENSOR_WRONG_CHIP", DIFFERS, ""),
            row("wrong/chip1-other-activation", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH", DIFFERS, ""),
            row("wrong/chip1-partial-added-to-itself", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH", DIFFERS, ""),
            row("wrong/chip1-partial-bf16", "ALLREDUCE_SHAPE", "ALLREDUCE_SHAPE,PARTIAL_RANGE_NARROWED,PRECISION_NARROWED", DIFFERS, ""),
            row("wrong/chip1-partial-gated-by-param", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH,PARAM_RANGE_WIDER", DIFFERS, ""),
            row("wrong/chip1-stores-half-output-invalid", "OUTPUT_CHIPS_DIFFER,STORE_SHAPE", "LOGICAL_OUTPUT_DIFFERS,OUTPUT_CHIPS_DIFFER,STORE_SHAPE", DIFFERS, ""),
            row("wrong/chip1-sum-doubled-no-bias", "OUTPUT_CHIPS_DIFFER", "LOGICAL_OUTPUT_DIFFERS,OUTPUT_CHIPS_DIFFER", DIFFERS, ""),
            row("wrong/column-parallel-output-windows-swapped", "OUTPUT_CHIPS_DIFFER", "LOGICAL_OUTPUT_DIFFERS,OUTPUT_CHIPS_DIFFER", DIFFERS, ""),
            row("wrong/contraction-over-two-cores-second-reads-first-tile", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH", DIFFERS, ""),
            row("wrong/data-parallel-both-chips-compute-row-0", "OUTPUT_WINDOWS_GAP", "LOGICAL_OUTPUT_DIFFERS,OUTPUT_WINDOWS_GAP", AGREES, "both chips compute and hold row 0 of y; row 1 is computed by no chip, which the evaluator, comparing each chip's window, cannot see"),
            row("wrong/data-parallel-rows-chip1-other-activation", "OUTPUT_CHIPS_DIFFER", "LOGICAL_OUTPUT_DIFFERS,OUTPUT_CHIPS_DIFFER", DIFFERS, ""),
            row("wrong/data-parallel-rows-output-windows-leave-a-gap", "OUTPUT_CHIPS_DIFFER,OUTPUT_WINDOWS_GAP", "LOGICAL_OUTPUT_DIFFERS,OUTPUT_CHIPS_DIFFER,OUTPUT_WINDOWS_GAP", DIFFERS, ""),
            row("wrong/hierarchical-allreduce-same-groups-twice", "ALLREDUCE_OVERLAP", "ALLREDUCE_OVERLAP", DIFFERS, ""),
            row("wrong/hierarchical-first-level-used-as-complete", "ALLREDUCE_GAP,PARTIAL_STORE", "ALLREDUCE_GAP,PARTIAL_STORE", DIFFERS, ""),
            row("wrong/k-tile-read-one-row-early", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH", DIFFERS, ""),
            row("wrong/k-tile-read-one-tile-early", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH", DIFFERS, ""),
            row("wrong/multicast-recv-before-load", "RECV_BEFORE_LOAD,RECV_MISSING", "RECV_BEFORE_LOAD,RECV_MISSING", DIFFERS, ""),
            row("wrong/multicast-recv-missing", "READ_BEFORE_WRITE,RECV_MISSING", "READ_BEFORE_WRITE,RECV_MISSING", DIFFERS, ""),
            row("wrong/multicast-recv-other-chips-group", "RECV_MISSING,RECV_NOT_RECEIVER", "RECV_MISSING,RECV_NOT_RECEIVER", DIFFERS, ""),
            row("wrong/multicast-recv-twice", "RECV_DUPLICATE", "RECV_DUPLICATE", AGREES, "a receiver takes one multicast load twice: a protocol violation that happens to copy the same data"),
            row("wrong/output-overwritten-with-garbage", "OUTPUT_CHIPS_DIFFER", "LOGICAL_OUTPUT_DIFFERS,OUTPUT_CHIPS_DIFFER", DIFFERS, ""),
            row("wrong/partial-column-tile-one-column-off", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH", DIFFERS, ""),
            row("wrong/partial-scratch-read-before-write", "ALLREDUCE_VIEW_MISMATCH,TENSOR_READ_BEFORE_WRITE", "ALLREDUCE_VIEW_MISMATCH,TENSOR_READ_BEFORE_WRITE", DIFFERS, ""),
            row("wrong/partials-cast-through-bf16", "holds", "PARTIAL_RANGE_NARROWED,PRECISION_NARROWED", DIFFERS, ""),
            row("wrong/partials-stored-to-outputs-declared-partial", "SHARD_DECL_EXTENT,UNREDUCED_OUTPUT", "LOGICAL_OUTPUT_DIFFERS,SHARD_DECL_EXTENT,UNREDUCED_OUTPUT", DIFFERS, ""),
            row("wrong/partials-summed-in-bf16", "holds", "PARTIAL_RANGE_NARROWED,PRECISION_NARROWED", DIFFERS, ""),
            row("wrong/replicated-weight-rows-chosen-by-param", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH,PARAM_RANGE_WIDER", DIFFERS, ""),
            row("wrong/row-max-where-parent-sums", "holds", "LOGICAL_OUTPUT_DIFFERS", DIFFERS, ""),
            row("wrong/row-sum-completed-by-max", "ALLREDUCE_POOL", "ALLREDUCE_POOL", DIFFERS, ""),
            row("wrong/row-sum-over-the-wrong-axis", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH,LOGICAL_OUTPUT_DIFFERS,SHARD_DECL_EXTENT", DIFFERS, ""),
            row("wrong/shard-rows-streamed-with-stride-one-short", "ALLREDUCE_VIEW_MISMATCH,PATTERN_STRIDE", "ALLREDUCE_VIEW_MISMATCH,PATTERN_STRIDE", DIFFERS, ""),
            row("wrong/store-row-tiles-swapped", "OUTPUT_CHIPS_DIFFER", "LOGICAL_OUTPUT_DIFFERS,OUTPUT_CHIPS_DIFFER", DIFFERS, ""),
            row("wrong/transposed-weight-both-chips-claim-the-first-half", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH", DIFFERS, ""),
            row("wrong/undeclared-weight-rows-chosen-by-param", "ALLREDUCE_VIEW_MISMATCH", "ALLREDUCE_VIEW_MISMATCH,PARAM_RANGE_WIDER", NOT_BINDABLE, "the replicated w2.c carry no declaration, so they are no window of the parent's tensors"),
            row("wrong/x-row-offset", "ALLREDUCE_VIEW_MISMATCH,LOAD_SHAPE", "ALLREDUCE_VIEW_MISMATCH,LOAD_SHAPE", DIFFERS, ""));

    private static Row row(String name, String alone, String withParent, CorpusRuns.Verdict evaluator, String why) {
        return new Row(name, alone, withParent, evaluator, why);
    }

    static Stream<Row> rows() {
        return ROWS.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void the_checker_reports_the_pinned_codes_alone_and_given_the_unsplit_parent(Row row) throws Exception {
        CorpusCase c = CorpusCase.load(row.name());
        VerifyReport alone = new Verifier().verify(c.program(), c.certificate(), Parent.none());
        VerifyReport withParent = new Verifier().verify(c.program(), c.certificate(), Parent.unsplit(c.parent()));
        assertThat(codes(alone)).as("alone").isEqualTo(row.alone());
        assertThat(codes(withParent)).as("with the unsplit parent").isEqualTo(row.withParent());
        // every report renders as text and as one JSON document
        String text = new ReportText().render(withParent);
        assertThat(text).isNotBlank();
        withParent.codes().forEach(code -> assertThat(text).contains(code));
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(new ReportJson().write(withParent)).isObject()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void the_evaluator_judges_each_case_as_the_table_says(Row row) throws Exception {
        CorpusRuns.Judgement j = CorpusRuns.judge(CorpusCase.load(row.name()));
        assertThat(j.verdict()).as(j.detail()).isEqualTo(row.evaluator());
    }

    @Test
    void right_cases_are_accepted_wrong_ones_rejected_given_the_parent_and_every_exception_says_why() {
        for (Row r : ROWS) {
            switch (r.name().substring(0, r.name().indexOf('/'))) {
                case "right" -> {
                    assertThat(r.alone()).as(r.name()).isEqualTo("holds");
                    assertThat(r.withParent()).as(r.name()).isEqualTo("holds");
                    assertThat(r.evaluator()).as(r.name()).isEqualTo(AGREES);
                }
                case "wrong" -> {
                    assertThat(r.withParent()).as(r.name()).isNotEqualTo("holds");
                    if (r.evaluator() != DIFFERS) {
                        assertThat(r.why()).as(r.name() + ": why it is wrong though the evaluator does not show it").isNotBlank();
                    }
                }
                case "limit" -> assertThat(r.why()).as(r.name()).isNotBlank();
                default -> throw new AssertionError("a case outside right/, wrong/, limit/: " + r.name());
            }
        }
        assertThat(ROWS.stream().filter(r -> r.name().startsWith("wrong/"))).hasSizeGreaterThan(50);
        assertThat(ROWS.stream().filter(r -> r.name().startsWith("right/"))).hasSizeGreaterThan(20);
    }

    @Test
    void every_case_on_disk_is_in_the_table_and_every_row_on_disk() throws Exception {
        List<String> onDisk;
        try (Stream<Path> s = Files.walk(CorpusCase.ROOT)) {
            onDisk = s.filter(p -> Files.exists(p.resolve("program.json"))).map(p -> CorpusCase.ROOT.relativize(p).toString().replace('\\', '/'))
                    .sorted().toList();
        }
        assertThat(ROWS.stream().map(Row::name).sorted().toList()).isEqualTo(onDisk);
    }

    private static String codes(VerifyReport r) {
        return r.holds() ? "holds" : String.join(",", new TreeSet<>(r.codes()));
    }
}
