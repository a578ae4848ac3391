package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * The decoder keeps what stages repeat once (docs/format.md, "Reading speed"): equal sites, port
 * lists and kinds of different stages are one instance, and unequal ones stay apart.
 */
class SharedStageValuesTest {
    private static StageKind generic(Expr e) {
        return new StageKind.Compute(new ComputeOp.Generic(e));
    }

    @Test
    void equalValuesOfDifferentStagesAreOneInstanceAndUnequalOnesStayApart() throws JsonFormatException {
        StageKind add = generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)));
        StageKind negativeZero = generic(Expr.apply(Fn.MUL, Expr.in(0), Expr.f(-0.0)));
        StageKind positiveZero = generic(Expr.apply(Fn.MUL, Expr.in(0), Expr.f(0.0)));
        Site s0 = new Site(0, 0, 0);
        List<Stage> stages = List.of(
                new Stage("a", s0, List.of("x", "y"), List.of("z"), add),
                new Stage("b", new Site(0, 0, 0), List.of("x", "y"), List.of("z"), add),
                new Stage("c", new Site(0, 1, 0), List.of("y", "x"), List.of("z"), negativeZero),
                new Stage("d", s0, List.of("z"), List.of("x", "y"), positiveZero));
        Program written = new Program("shared", new Machine(1, 2, 1), List.of(), List.of(), List.of(), List.of(), stages);
        Program read = new ProgramCodec().read(new ProgramCodec().writeString(written));

        assertThat(read).isEqualTo(written);
        List<Stage> r = read.stages();
        assertThat(r.get(1).site()).isSameAs(r.get(0).site()).isSameAs(r.get(3).site());
        assertThat(r.get(1).ins()).isSameAs(r.get(0).ins());
        assertThat(r.get(1).outs()).isSameAs(r.get(0).outs());
        assertThat(r.get(1).kind()).isSameAs(r.get(0).kind());
        // the same names in another order, another site, -0.0 beside 0.0: not merged
        assertThat(r.get(2).ins()).isEqualTo(List.of("y", "x"));
        assertThat(r.get(2).site()).isEqualTo(new Site(0, 1, 0));
        assertThat(r.get(3).outs()).isEqualTo(List.of("x", "y"));
        assertThat(r.get(2).kind()).isEqualTo(negativeZero).isNotEqualTo(r.get(3).kind());
        assertThat(r.get(3).kind()).isEqualTo(positiveZero);
    }
}
