package org.stagecheck.author.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.author.build.ProgramBuilder;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorRole;

/**
 * The bound tensors of a cut's program (weights, inputs, state), declared on first use, with
 * where each comes from ({@link Binding}) and, split over chips, the certificate's shard
 * declarations of the row-sharded weights. On one chip every tensor is whole and keeps its
 * logical name; split, a replicated tensor is named {@code name.c<k>} on chip k > 0 and a
 * sharded one {@code name.c<k>} on every chip.
 */
final class BoundTensors {
    private final ProgramBuilder b;
    private final int tp;
    /** The storage dtype of the model weights (activations, caches and rotary tables are f32). */
    private final DType wdt;
    private final Map<String, Binding> bindings = new LinkedHashMap<>();
    private final List<ShardDecl> shards = new ArrayList<>();

    BoundTensors(ProgramBuilder b, int tp, DType weightDType) {
        this.b = b;
        this.tp = tp;
        this.wdt = weightDType;
    }

    Map<String, Binding> bindings() {
        return Map.copyOf(bindings);
    }

    List<ShardDecl> shards() {
        return List.copyOf(shards);
    }

    DType weightDType() {
        return wdt;
    }

    /** A tensor every chip holds whole: its logical name on chip 0, {@code name.c<k>} on chip k. */
    String replicated(String logical, int chip, DType dtype, Shape shape, TensorRole role) {
        String name = chip == 0 ? logical : logical + ".c" + chip;
        if (b.tensorDecl(name) == null) {
            b.tensor(name, dtype, shape, chip, role);
            bindings.put(name, Binding.whole(logical));
            if (tp > 1 && shape.rank() > 0 && shape.dim(0) > 0) {
                // split: the certificate says every chip's copy is the whole logical tensor
                shards.add(new ShardDecl(name, logical, 0, 0, shape.dim(0), shape.dim(0)));
            }
        }
        return name;
    }

    /** A model weight every chip holds whole, in the weight dtype. */
    String replicatedWeight(String logical, int chip, Shape shape) {
        return replicated(logical, chip, wdt, shape, TensorRole.WEIGHT);
    }

    /** Columns {@code [chip*width, (chip+1)*width)} of weight {@code logical} ({@code [k, n]}). */
    String columnShard(String logical, int chip, int k, int n, int width) {
        if (tp == 1) {
            return replicatedWeight(logical, chip, Shape.of(k, n));
        }
        return shard(logical, chip, wdt, Shape.of(k, width), TensorRole.WEIGHT, 1, width, (long) width * tp);
    }

    /** A KV cache state tensor, sharded by columns (this chip's KV heads) when split. */
    String columnShardState(String logical, int chip, Shape shape, int width) {
        if (tp == 1) {
            return replicated(logical, chip, DType.F32, shape, TensorRole.STATE);
        }
        return shard(logical, chip, DType.F32, shape, TensorRole.STATE, 1, width, (long) width * tp);
    }

    /**
     * Rows {@code [chip*height, (chip+1)*height)} of weight {@code logical} ({@code [k, n]}), its
     * contraction axis: the product is a partial, declared in the certificate as a shard.
     */
    String rowShard(String logical, int chip, int k, int n, int height) {
        if (tp == 1) {
            return replicatedWeight(logical, chip, Shape.of(k, n));
        }
        return shard(logical, chip, wdt, Shape.of(height, n), TensorRole.WEIGHT, 0, height, k);
    }

    /**
     * Chip {@code chip}'s slice {@code [chip*width, (chip+1)*width)} along {@code axis} of weight
     * {@code logical} whose whole shape is {@code whole}: a chip's experts of a stacked expert
     * weight (expert-parallel), declared as a shard like any other.
     */
    String sliceShard(String logical, int chip, Shape whole, int axis, int width) {
        int[] dims = {whole.dim(0), whole.dim(1)};
        dims[axis] = width;
        return shard(logical, chip, wdt, Shape.of(dims[0], dims[1]), TensorRole.WEIGHT, axis, width, whole.dim(axis));
    }

    /**
     * Chip {@code chip}'s slice {@code [chip*width, (chip+1)*width)} along {@code axis} of the
     * logical tensor (of {@code extent} along that axis), declared once: its binding to the
     * logical tensor and its shard declaration for the certificate.
     */
    private String shard(String logical, int chip, DType dtype, Shape shape, TensorRole role, int axis, int width, long extent) {
        String name = logical + ".c" + chip;
        if (b.tensorDecl(name) == null) {
            b.tensor(name, dtype, shape, chip, role);
            bindings.put(name, new Binding(logical, axis, chip * width, (chip + 1) * width));
            shards.add(new ShardDecl(name, logical, axis, (long) chip * width, (long) (chip + 1) * width, extent));
        }
        return name;
    }

    /** Whether {@code tensor} is a row shard, whose products are partials (the certificate also declares replicas and column shards). */
    boolean isRowShard(String tensor) {
        return shards.stream().anyMatch(d -> d.tensor().equals(tensor) && d.axis() == 0 && d.end() - d.start() != d.extent());
    }
}
