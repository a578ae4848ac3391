package org.stagecheck.verifier;

import org.stagecheck.spec.cert.Obligation;

/**
 * The stable codes of the certificate checker's findings (brief, "Certificates"), each with the
 * obligation it belongs to and a one-line rule that SARIF viewers show. A diagnostic's
 * {@code code} is the enum constant's name; CI scripts and tests match on it, so a rename is an
 * incompatible change.
 */
public enum Code {
    // ---- the certificate as a whole: written for this program
    CERT_PROGRAM_DIFFERS(Obligation.UNREDUCED_SHARD, "The certificate names the hash of another program than the one checked: it was written for another program, and none of its declarations is used."),
    // ---- UnreducedShard: the certificate's shard declarations themselves
    SHARD_DECL_UNKNOWN_TENSOR(Obligation.UNREDUCED_SHARD, "A shard declaration names a tensor the program does not declare (one finding for the whole certificate when at least half of its declarations do)."),
    SHARD_DECL_AXIS(Obligation.UNREDUCED_SHARD, "A shard declaration's axis is outside the tensor's rank."),
    SHARD_DECL_EXTENT(Obligation.UNREDUCED_SHARD, "A shard declaration's slice length disagrees with the tensor's shape, or declarations of one logical tensor disagree on its extent."),
    SHARD_DECL_DUPLICATE(Obligation.UNREDUCED_SHARD, "A tensor is declared a shard more than once."),
    SHARD_OFFSET_UNKNOWN(Obligation.UNREDUCED_SHARD, "A load reads a shard tensor at a non-constant offset along the shard axis, so the slice it holds cannot be derived."),
    SHARD_MISALIGNED(Obligation.UNREDUCED_SHARD, "A contraction multiplies two shards that hold different slices of the contraction axis."),
    SHARD_LOCAL_ARGMAX(Obligation.UNREDUCED_SHARD, "An arg-max runs over a shard's sharded axis, so its index is local to the chip's slice."),
    // ---- UnreducedShard: a partial value meeting a use it may not reach
    PARTIAL_NONLINEAR(Obligation.UNREDUCED_SHARD, "A partial value reaches a non-linear operation before it is reduced."),
    PARTIAL_PLUS_FULL(Obligation.UNREDUCED_SHARD, "A partial value is added to a full value (e.g. a bias) before it is reduced, so the full value is counted once per shard."),
    PARTIAL_PARTITION_MISMATCH(Obligation.UNREDUCED_SHARD, "Two partial values over different partitions are combined elementwise."),
    PARTIAL_OVERLAP(Obligation.UNREDUCED_SHARD, "An accumulation adds a slice of the contraction axis that the accumulator already holds."),
    PARTIAL_STORE(Obligation.UNREDUCED_SHARD, "A partial value is stored to a tensor that is not declared to hold exactly that partial."),
    PARTIAL_AS_INDEX(Obligation.UNREDUCED_SHARD, "A partial value is used as an index, an offset or a scalar operand."),
    PARTIAL_RELOAD_MIXED(Obligation.UNREDUCED_SHARD, "A load reads a region that overlaps stored partial values without being a region stored as one (or through a strided or indirect pattern), so which slices it holds cannot be told."),
    LOAD_UNWRITTEN_REGION(Obligation.UNREDUCED_SHARD, "A load reads a region of a scratch or output tensor that no store wrote, though other regions of it were written."),
    OUTPUT_CHIPS_DIFFER(Obligation.UNREDUCED_SHARD, "Tensors declared to hold parts of one logical output or state tensor end up holding different logical values on different chips."),
    OUTPUT_WINDOWS_GAP(Obligation.UNREDUCED_SHARD, "The tensors declared windows of one logical output or state tensor leave part of it held by no chip."),
    UNREDUCED_OUTPUT(Obligation.UNREDUCED_SHARD, "An output or state tensor holds a value computed from a chip's own share of a split contraction (a declared row-parallel window) taken as a value before it was reduced, whether or not another chip's output is compared with it."),
    STORE_FULL_AS_PARTIAL(Obligation.UNREDUCED_SHARD, "A full value is stored to a tensor declared to hold a partial, so a later reduce counts it once per shard."),
    REDUCE_OF_FULL(Obligation.UNREDUCED_SHARD, "An all-reduce takes a value that is not a partial: a full value under a sum (counted once per chip), or a shard under any pool (unrelated slices combined)."),
    ALLREDUCE_OVERLAP(Obligation.UNREDUCED_SHARD, "The inputs of an all-reduce hold overlapping slices of the contraction axis (a slice is counted twice)."),
    ALLREDUCE_GAP(Obligation.UNREDUCED_SHARD, "The inputs of an all-reduce leave part of the contraction axis uncovered (a slice is missing)."),
    ALLREDUCE_MIXED(Obligation.UNREDUCED_SHARD, "An all-reduce combines partials of a tensor other than the one it names."),
    ALLREDUCE_POOL(Obligation.UNREDUCED_SHARD, "An all-reduce's pool is not the reduction its partial inputs were made with."),
    ALLREDUCE_VIEW_MISMATCH(Obligation.UNREDUCED_SHARD, "The inputs of an all-reduce are partials laid out or scaled differently per chip (transposed, sliced, reloaded or scaled on one chip only), so it adds unrelated elements."),
    ALLREDUCE_COMBINE(Obligation.UNREDUCED_SHARD, "An all-reduce's combine is not the fold of its pool over its operand count."),
    GUARDED_READ_UNMASKED(Obligation.UNREDUCED_SHARD, "A block read at an offset that is right only while an index lies in a range (a chip's own experts) reaches an all-reduce or an output without being masked to 0 wherever the index lies outside it."),
    GUARDED_BLOCK_OUT_OF_BOUNDS(Obligation.UNREDUCED_SHARD, "A block read at an offset a guarded index arithmetic gives (an owned expert's local index) can leave its tensor for some value the index can take."),
    INDEXED_BLOCK_OUTSIDE_SHARD(Obligation.UNREDUCED_SHARD, "A block read of a shard at an offset that follows an index the program does not bound (a token id) lies in the shard only for some of the ids that name a row of the logical tensor: another chip's id reads past the shard."),
    HEAD_KV_MISMATCH(Obligation.UNREDUCED_SHARD, "An attention head pairs a query head with another key/value head than the certificate's head layout gives it (contiguous groups or interleaved), so it computes another head than the logical attention's."),
    // ---- UnreducedShard against the unsplit parent: the split computes the parent's logical program
    LOGICAL_OUTPUT_DIFFERS(Obligation.UNREDUCED_SHARD, "An output or state tensor of the split does not hold what the unsplit parent's tensor of that logical name holds (another expression, other elements, or none), so the split computes another program."),
    PARTIAL_RANGE_NARROWED(Obligation.UNREDUCED_SHARD, "A partial is rounded to a float format whose finite range it can exceed (f16 overflows past 65504, e4m3 saturates at 448) where the unsplit parent does not round it, so the sum of the rounded partials is not the rounded sum."),
    PRECISION_NARROWED(Obligation.UNREDUCED_SHARD, "An output or state tensor of the split is computed through a narrower float format (a buffer, cast or tensor dtype) than the unsplit parent's tensor of that logical name, e.g. f32 partials summed in bf16."),
    PARAM_RANGE_WIDER(Obligation.UNREDUCED_SHARD, "A parameter of the split is one the unsplit parent does not declare, or its declared range is wider than the parent's, so the comparison with the parent does not cover every run the split promises."),
    LOGICAL_PROGRAM_NOT_CHECKED(Obligation.UNREDUCED_SHARD, "The logical program was required to be checked (verify --require-parent), but no unsplit parent was given to compare the program with."),
    UNSPLIT_PARENT_INVALID(Obligation.UNREDUCED_SHARD, "The unsplit parent given is not well-formed, so the split cannot be compared with it."),
    // ---- buffer remap
    REMAP_PARENT_HASH(Obligation.BUFFER_REMAP, "The parent program given is not the one the certificate's remap was made from."),
    REMAP_NOT_INJECTIVE(Obligation.BUFFER_REMAP, "The remap sends two parent buffers to one child buffer."),
    REMAP_UNDEFINED(Obligation.BUFFER_REMAP, "The remap does not say where a buffer the parent references goes."),
    REMAP_DECLS_DIFFER(Obligation.BUFFER_REMAP, "A declaration of the child is not the remap of the parent's."),
    REMAP_STAGE_COUNT(Obligation.BUFFER_REMAP, "The child does not have the parent's stages."),
    REMAP_STAGE_DIFFERS(Obligation.BUFFER_REMAP, "A child stage differs from its parent stage in more than buffer names."),
    REMAP_PORT(Obligation.BUFFER_REMAP, "A child stage's port is not the remap of the parent's."),
    REMAP_INTERNAL_REF(Obligation.BUFFER_REMAP, "A kind-internal reference (index buffer, offset buffer, bias, spill) is not the remap of the parent's."),
    REF_UNDECLARED(Obligation.BUFFER_REMAP, "A kind-internal reference names no declared buffer."),
    REF_WRONG_SITE(Obligation.BUFFER_REMAP, "A kind-internal reference names a buffer on another core."),
    REF_ROLE_MISFIT(Obligation.BUFFER_REMAP, "A kind-internal reference names a buffer that does not fit its role (index, offset, spill or bias)."),
    // ---- multicast and ordering
    RECV_BEFORE_LOAD(Obligation.MULTICAST, "A receive runs before any load to its group (or after the load it would pair with was consumed)."),
    RECV_DUPLICATE(Obligation.MULTICAST, "A receiver takes the same multicast load twice."),
    RECV_MISSING(Obligation.MULTICAST, "A receiver of a multicast group never takes a load sent to it."),
    READ_BEFORE_WRITE(Obligation.MULTICAST, "A stage reads a buffer that no earlier stage wrote."),
    TENSOR_READ_BEFORE_WRITE(Obligation.MULTICAST, "A load reads a scratch or output tensor that no earlier stage stored to."),
    // ---- the checker itself
    EXPR_TOO_DEEP(Obligation.WELL_FORMED, "An expression nests too deeply for the checker's stack (it recurses over expression trees); the obligation is not discharged."),
    CHECKER_FAULT(Obligation.WELL_FORMED, "The checker could not finish a check on this (likely ill-formed) input; the obligation is not discharged.");

    private final Obligation obligation;
    private final String rule;

    Code(Obligation obligation, String rule) {
        this.obligation = obligation;
        this.rule = rule;
    }

    /** The obligation whose failure this code reports. */
    public Obligation obligation() {
        return obligation;
    }

    /** One sentence stating the rule (for SARIF {@code rules[].shortDescription}). */
    public String rule() {
        return rule;
    }

    /** The code of a diagnostic, or null when it is not one of the checker's. */
    public static Code of(String name) {
        for (Code c : values()) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return null;
    }
}
