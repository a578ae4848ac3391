package org.stagecheck.spec.validate;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/** A tiny builder so that each validator test reads as one sentence about one stage. */
final class ValidatorFixtures {
    static final Site CORE = Site.of(0, 0, 0);

    private Machine machine = new Machine(1, 1, 1);
    private final List<Param> params = new ArrayList<>();
    private final List<TensorDecl> tensors = new ArrayList<>();
    private final List<BufferDecl> buffers = new ArrayList<>();
    private final List<Group> groups = new ArrayList<>();
    private final List<Stage> stages = new ArrayList<>();

    static ValidatorFixtures program() {
        return new ValidatorFixtures();
    }

    ValidatorFixtures machine(int chips, int w, int h) {
        machine = new Machine(chips, w, h);
        return this;
    }

    ValidatorFixtures param(String name, long min, long max) {
        params.add(new Param(name, min, max));
        return this;
    }

    ValidatorFixtures tensor(String name, DType dtype, TensorRole role, int... shape) {
        tensors.add(new TensorDecl(name, dtype, Shape.of(shape), 0, role));
        return this;
    }

    ValidatorFixtures buffer(String name, DType dtype, int... shape) {
        return bufferAt(name, dtype, CORE, shape);
    }

    ValidatorFixtures bufferAt(String name, DType dtype, Site site, int... shape) {
        buffers.add(new BufferDecl(name, dtype, Shape.of(shape), site));
        return this;
    }

    ValidatorFixtures group(Group g) {
        groups.add(g);
        return this;
    }

    ValidatorFixtures stage(String id, List<String> ins, List<String> outs, StageKind kind) {
        return stageAt(id, CORE, ins, outs, kind);
    }

    ValidatorFixtures stageAt(String id, Site site, List<String> ins, List<String> outs, StageKind kind) {
        stages.add(new Stage(id, site, ins, outs, kind));
        return this;
    }

    Program build() {
        return new Program("fixture", machine, params, tensors, buffers, groups, stages);
    }

    /** The rendered diagnostics, one per line: what the tests pin. */
    String validate() {
        List<Diagnostic> ds = new Validator().validate(build());
        return ds.stream().map(Diagnostic::render).collect(Collectors.joining("\n"));
    }

    static AccessPattern.Block block(int... shape) {
        List<Offset> origin = new ArrayList<>();
        for (int i = 0; i < shape.length; i++) {
            origin.add(Offset.constant(0));
        }
        return new AccessPattern.Block(origin, Shape.of(shape));
    }

    static StageKind.Load load(String tensor, AccessPattern p) {
        return new StageKind.Load(tensor, p, 1, null);
    }
}
