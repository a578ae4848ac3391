package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Two terms that print the same text are told apart by the first subterms where they differ
 * ({@link TermDifference}): here a column value read in place and read as a broadcast of its
 * column, under the same {@code tanh}.
 */
class TermDifferenceTest {
    private final Terms terms = new Terms();
    private final Ops ops = new Ops(terms);
    private final Align align = new Align(terms, ops);

    @Test
    void a_broadcast_read_and_the_value_itself_under_one_operation_are_told_apart() {
        Term column = terms.of("leaf:m", "m", "m", new long[] {2, 1});
        Term broadcast = align.term(column, Region.at0(new long[] {2, 1}), new Sym[] {Sym.ZERO, Sym.ZERO}, new long[] {2, 8});
        Term mine = ops.op("tanh", List.of(broadcast));
        Term theirs = ops.op("tanh", List.of(column));
        assertThat(mine.text()).isEqualTo(theirs.text());
        assertThat(TermDifference.of(mine, theirs))
                .isEqualTo(" at its subterm m, the split's is a read of m (axis 0 in place, axis 1 broadcast from position 0) defined on [0, 2) x every position"
                        + " and the unsplit program's is the value m defined on [0, 2) x [0, 1)");
        assertThat(TermDifference.of(mine, mine)).isEmpty();
    }
}
