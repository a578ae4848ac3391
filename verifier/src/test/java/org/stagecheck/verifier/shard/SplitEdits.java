package org.stagecheck.verifier.shard;

import org.stagecheck.verifier.Parent;
import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.corpus.Plant;
import org.stagecheck.verifier.corpus.TpCase;
import org.stagecheck.verifier.corpus.TpPrograms;
import org.stagecheck.verifier.corpus.TpSpec;

/**
 * Edits of a valid split of the reference splitter ({@link TpPrograms}) for the adversarial
 * review: extra buffers and stages spliced in after a named stage, ports renamed. Chip c's
 * buffers end in {@code .c}; chip c's partial is {@code p.c}, the all-reduce {@code allreduce_w2}.
 */
public final class SplitEdits {
    /** Square partials (rows = model = 3), two chips, W2 rows [0,3) and [3,6): no multicast, no spill. */
    static final TpSpec SQUARE = new TpSpec(3, 3, 6, 2, TpSpec.Act.TANH, false, false, false);

    private final TpCase base;
    private final List<BufferDecl> buffers;
    private final List<Stage> stages;
    private final List<TensorDecl> tensors;
    private final List<ShardDecl> shards;

    public SplitEdits(TpSpec spec) {
        this.base = TpPrograms.split(spec, Plant.NONE);
        this.buffers = new ArrayList<>(base.program().buffers());
        this.stages = new ArrayList<>(base.program().stages());
        this.tensors = new ArrayList<>(base.program().tensors());
        this.shards = new ArrayList<>(base.certificate().shards());
    }

    /** A scratch tensor on {@code chip} declared to hold chip c's partial of w2 (rows [c*slice, (c+1)*slice)) on axis 0. */
    SplitEdits partialScratch(String name, int chip, int... dims) {
        tensors.add(new TensorDecl(name, DType.F32, Shape.of(dims), chip, TensorRole.SCRATCH));
        int slice = base.spec().slice();
        shards.add(new ShardDecl(name, "w2", 0, (long) chip * slice, (long) (chip + 1) * slice, base.spec().hidden()));
        return this;
    }

    static Site core(int chip) {
        return new Site(chip, 0, 0);
    }

    /** The core where chip {@code chip}'s compute runs (x is multicast there from core 0 when asked). */
    public Site computeCore(int chip) {
        return new Site(chip, base.spec().multicast() ? 1 : 0, 0);
    }

    public TpSpec spec() {
        return base.spec();
    }

    /** Adds a buffer on chip {@code chip}'s compute core. */
    public SplitEdits bufferAt(String name, int chip, int... dims) {
        buffers.add(new BufferDecl(name, DType.F32, Shape.of(dims), computeCore(chip)));
        return this;
    }

    /** Adds a tensor. */
    public SplitEdits tensor(TensorDecl t) {
        tensors.add(t);
        return this;
    }

    /** The stages, to read and edit in place. */
    public List<Stage> stages() {
        return stages;
    }

    /** The certificate's shard declarations, to edit in place. */
    public List<ShardDecl> shards() {
        return shards;
    }

    SplitEdits buffer(String name, int chip, int... dims) {
        buffers.add(new BufferDecl(name, DType.F32, Shape.of(dims), core(chip)));
        return this;
    }

    SplitEdits buffer(String name, DType dtype, int chip, int... dims) {
        buffers.add(new BufferDecl(name, dtype, Shape.of(dims), core(chip)));
        return this;
    }

    /** Inserts a stage right after stage {@code afterId}. */
    public SplitEdits after(String afterId, Stage s) {
        stages.add(indexOf(afterId) + 1, s);
        return this;
    }

    SplitEdits compute(String afterId, String id, int chip, List<String> ins, String out, ComputeOp op) {
        return after(afterId, new Stage(id, core(chip), ins, List.of(out), new StageKind.Compute(op)));
    }

    /** Replaces stage {@code id}'s input {@code from} by {@code to}. */
    public SplitEdits rewire(String id, String from, String to) {
        int i = indexOf(id);
        Stage s = stages.get(i);
        List<String> ins = s.ins().stream().map(b -> b.equals(from) ? to : b).toList();
        stages.set(i, new Stage(s.id(), s.site(), ins, s.outs(), s.kind()));
        return this;
    }

    public SplitEdits replace(String id, StageKind kind) {
        int i = indexOf(id);
        Stage s = stages.get(i);
        stages.set(i, new Stage(s.id(), s.site(), s.ins(), s.outs(), kind));
        return this;
    }

    private int indexOf(String id) {
        for (int i = stages.size() - 1; i >= 0; i--) {
            if (stages.get(i).id().equals(id)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no stage " + id);
    }

    public Program program() {
        Program p = base.program();
        return new Program(p.name(), p.machine(), p.params(), tensors, buffers, p.groups(), stages);
    }

    public Certificate certificate() {
        Certificate c = base.certificate();
        return new Certificate(shards, c.remap(), c.claims());
    }

    public TpCase asCase() {
        return new TpCase(base.spec(), Plant.NONE, program(), certificate(), null, base.unsplit());
    }

    public VerifyReport verify() {
        return new Verifier().verify(program(), certificate(), Parent.none());
    }
}
