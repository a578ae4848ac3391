package org.stagecheck.spec.gen;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/**
 * Accumulates the declarations and stages of one generated program. Names are made unique by a
 * running counter ({@code t12_table}, {@code b40_idx}, {@code s7}), so fragments never collide and
 * every addition is O(1): a program of 10^5 stages is built in linear time.
 */
final class ProgramBuilder {
    private final Machine machine;
    private final List<Param> params = new ArrayList<>();
    private final List<TensorDecl> tensors = new ArrayList<>();
    private final List<BufferDecl> buffers = new ArrayList<>();
    private final List<Group> groups = new ArrayList<>();
    private final List<Stage> stages = new ArrayList<>();
    private final List<ShardDecl> shards = new ArrayList<>();
    private int counter;

    ProgramBuilder(Machine machine) {
        this.machine = machine;
    }

    Machine machine() {
        return machine;
    }

    int stageCount() {
        return stages.size();
    }

    void param(Param p) {
        params.add(p);
    }

    String tensor(String what, DType dtype, Shape shape, int chip, TensorRole role) {
        String name = "t" + counter++ + "_" + what;
        tensors.add(new TensorDecl(name, dtype, shape, chip, role));
        return name;
    }

    String buffer(String what, DType dtype, Shape shape, Site site) {
        String name = "b" + counter++ + "_" + what;
        buffers.add(new BufferDecl(name, dtype, shape, site));
        return name;
    }

    Group group(int chip, Rect rect, Site sender) {
        Group g = new Group("g" + counter++, chip, rect, sender);
        groups.add(g);
        return g;
    }

    void shard(ShardDecl s) {
        shards.add(s);
    }

    List<ShardDecl> shards() {
        return shards;
    }

    /** Unique name for a logical (sharded) tensor that no declaration carries. */
    String logicalName(String what) {
        return "w" + counter++ + "_" + what;
    }

    void stage(Site site, List<String> ins, List<String> outs, StageKind kind) {
        stages.add(new Stage("s" + stages.size(), site, ins, outs, kind));
    }

    /** How much has been declared so far: what {@link #rollback} returns to. */
    record Mark(int tensors, int buffers, int groups, int stages, int shards) {}

    Mark mark() {
        return new Mark(tensors.size(), buffers.size(), groups.size(), stages.size(), shards.size());
    }

    /** Forgets everything added since {@code m} (the name counter runs on, so names stay unique). */
    void rollback(Mark m) {
        tensors.subList(m.tensors(), tensors.size()).clear();
        buffers.subList(m.buffers(), buffers.size()).clear();
        groups.subList(m.groups(), groups.size()).clear();
        stages.subList(m.stages(), stages.size()).clear();
        shards.subList(m.shards(), shards.size()).clear();
    }

    Program build(String name) {
        return new Program(name, machine, params, tensors, buffers, groups, stages);
    }
}
