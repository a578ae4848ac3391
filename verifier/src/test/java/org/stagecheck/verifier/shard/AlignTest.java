package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Reading a value in a frame ({@link Align#term}) remembers its last alignments (docs/verifier.md,
 * "Scale"): what it finds again must be what it would build again, also after something the
 * alignment depends on changed since, here the axes along which the term is known constant.
 */
class AlignTest {
    private final Terms terms = new Terms();
    private final Align align = new Align(terms, new Ops(terms));

    @Test
    void a_read_found_again_is_the_read_built_again_and_follows_constant_axes_marked_since() {
        Term row = terms.of("leaf:x", "x", "x", new long[] {1, 8});
        Region held = Region.at0(new long[] {1, 8});
        Sym[] frame = {Sym.ZERO, Sym.ZERO};
        long[] out = {4, 8};
        // one row read as four: a broadcast along axis 0, a term of its own
        Term broadcast = align.term(row, held, frame, out);
        assertThat(broadcast).isNotSameAs(row);
        assertThat(align.term(row, held, frame.clone(), out.clone())).isSameAs(broadcast);
        // the same term in another frame is another read
        Term shifted = align.term(row, held, new Sym[] {Sym.ZERO, Sym.of(2)}, out);
        assertThat(shifted).isNotSameAs(broadcast).isNotSameAs(row);
        assertThat(align.term(row, held, frame, out)).isSameAs(broadcast);
        // once the term is known the same along axis 0, reading one row is reading every row: the term itself
        terms.constantAxes(row, 1L);
        assertThat(align.term(row, held, frame, out)).isSameAs(row);
    }

    @Test
    void an_increasing_function_read_in_place_is_itself_and_read_shifted_is_the_function_of_the_shifted_argument() {
        Ops ops = new Ops(terms);
        Align reads = new Align(terms, ops);
        Term x = terms.of("leaf:x", "x", "x", new long[] {4, 8});
        Term tanhX = ops.op("tanh", java.util.List.of(ops.op("sigmoid", java.util.List.of(x))));
        Region held = Region.at0(new long[] {4, 8});
        int before = terms.size();
        assertThat(reads.term(tanhX, held, new Sym[] {Sym.ZERO, Sym.ZERO}, new long[] {4, 8})).isSameAs(tanhX);
        assertThat(terms.size()).isEqualTo(before);
        // read two rows further on: tanh(sigmoid(x read there)), the term building it that way gives
        Sym[] later = {Sym.of(2), Sym.ZERO};
        Term shifted = reads.term(tanhX, held, later, new long[] {4, 8});
        Term xThere = reads.term(x, held, later, new long[] {4, 8});
        assertThat(xThere).isNotSameAs(x);
        assertThat(shifted).isSameAs(ops.op("tanh", java.util.List.of(ops.op("sigmoid", java.util.List.of(xThere)))));
    }

    @Test
    void a_parent_function_read_in_place_by_the_child_inherits_the_childs_demotion_as_building_it_again_would() {
        // the parent built exp(x); the child demoted x (a partial used as a value) and reads
        // exp(x) in place without building it again: the child's exp(x) is still built from that
        // demotion, as Terms#op records when it finds a parent's term again
        terms.at(Terms.PARENT, 0);
        Term x = terms.of("leaf:x", "x", "x", new long[] {4, 8});
        Term expX = new Ops(terms).op("exp", java.util.List.of(x));
        terms.at(Terms.CHILD, 3);
        Align childReads = new Align(terms, new Ops(terms));
        Demotion why = new Demotion(null, 3, null, "/ins/0", "p", "a partial used as a value", java.util.List.of());
        assertThat(terms.demoted("leaf:x", "x", "x", new long[] {0, 0}, new long[] {4, 8}, why)).isSameAs(x);
        Term read = childReads.term(expX, Region.at0(new long[] {4, 8}), new Sym[] {Sym.ZERO, Sym.ZERO}, new long[] {4, 8});
        assertThat(read).isSameAs(expX);
        assertThat(terms.demotion(expX)).isSameAs(why);
        terms.at(Terms.PARENT, 0);
        assertThat(terms.demotion(expX)).as("the parent's own, unchanged").isNull();
    }
}
