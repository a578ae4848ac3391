package org.stagecheck.verifier.algebra;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.CertificateCodec;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.adversarial.CorpusCase;
import org.stagecheck.verifier.adversarial.CorpusRuns;

/**
 * A program written stage by stage in the JSON format (docs/format.md), one core per chip, with
 * its certificate's shard declarations: small enough that a split pattern reads as its stages.
 * Buffers holding a tensor's whole value are named like the tensor.
 */
final class SplitText {
    private final String name;
    private final int chips;
    private final List<String> tensors = new ArrayList<>();
    private final List<String> buffers = new ArrayList<>();
    private final List<String> stages = new ArrayList<>();
    private final List<String> shards = new ArrayList<>();
    private final List<String> params = new ArrayList<>();
    private final Map<String, int[]> dims = new HashMap<>();
    private final Map<String, String> dtypes = new HashMap<>();
    private String heads;

    SplitText(String name, int chips) {
        this.name = name;
        this.chips = chips;
    }

    private static String list(int... v) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < v.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(v[i]);
        }
        return sb.append(']').toString();
    }

    private static String names(List<String> v) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < v.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append('"').append(v.get(i)).append('"');
        }
        return sb.append(']').toString();
    }

    private static String site(int chip) {
        return "[" + chip + ", 0, 0]";
    }

    SplitText buffer(String b, int chip, int... shape) {
        return buffer(b, "f32", chip, shape);
    }

    SplitText buffer(String b, String dtype, int chip, int... shape) {
        buffers.add("{\"name\": \"" + b + "\", \"dtype\": \"" + dtype + "\", \"shape\": " + list(shape) + ", \"site\": " + site(chip) + "}");
        dims.put(b, shape);
        dtypes.put(b, dtype);
        return this;
    }

    /** An input (or weight) tensor and its whole load into a buffer of the same name. */
    SplitText input(String t, int chip, int... shape) {
        return input(t, "f32", chip, shape);
    }

    SplitText input(String t, String dtype, int chip, int... shape) {
        tensors.add("{\"name\": \"" + t + "\", \"dtype\": \"" + dtype + "\", \"shape\": " + list(shape) + ", \"chip\": " + chip + ", \"role\": \"input\"}");
        buffer(t, dtype, chip, shape);
        stages.add("{\"id\": \"load_" + t + "\", \"site\": " + site(chip) + ", \"ins\": [], \"outs\": [\"" + t + "\"], \"kind\": {\"type\": \"Load\", \"tensor\": \""
                + t + "\", \"pattern\": {\"type\": \"block\", \"origin\": " + list(new int[shape.length]) + ", \"block\": " + list(shape) + "}, \"numBlocks\": 1}}");
        return this;
    }

    /** A bound tensor read only by the stages that name it (a table gathered from). */
    SplitText table(String t, String dtype, int chip, int... shape) {
        tensors.add("{\"name\": \"" + t + "\", \"dtype\": \"" + dtype + "\", \"shape\": " + list(shape) + ", \"chip\": " + chip + ", \"role\": \"weight\"}");
        dims.put(t, shape);
        dtypes.put(t, dtype);
        return this;
    }

    /** Rows {@code ids[i]} of table {@code t} (rank 2) into a new buffer {@code out}, {@code ids} a rank-1 i32 buffer. */
    SplitText gather(int chip, String out, String t, String ids) {
        int[] shape = {dims.get(ids)[0], dims.get(t)[1]};
        buffer(out, dtypes.get(t), chip, shape);
        stages.add("{\"id\": \"gather_" + out + "\", \"site\": " + site(chip) + ", \"ins\": [], \"outs\": [\"" + out + "\"], \"kind\": {\"type\": \"Load\", \"tensor\": \""
                + t + "\", \"pattern\": {\"type\": \"indirect\", \"indexBuffer\": \"" + ids + "\", \"origin\": [0], \"block\": [" + shape[1] + "]}, \"numBlocks\": 1}}");
        return this;
    }

    /** {@code in}'s elements in a new buffer of another shape. */
    SplitText reshape(int chip, String out, int[] shape, String in) {
        buffer(out, dtypes.get(in), chip, shape);
        return compute(chip, out, "{\"type\": \"reshape\"}", in);
    }

    /** Parameter {@code p}, taking every value in {@code [min, max]}. */
    SplitText param(String p, long min, long max) {
        params.add("{\"name\": \"" + p + "\", \"min\": " + min + ", \"max\": " + max + "}");
        return this;
    }

    /** A state tensor (read and written in place; the evaluator compares what it holds after the run). */
    SplitText state(String t, int chip, int... shape) {
        tensors.add("{\"name\": \"" + t + "\", \"dtype\": \"f32\", \"shape\": " + list(shape) + ", \"chip\": " + chip + ", \"role\": \"state\"}");
        dims.put(t, shape);
        dtypes.put(t, "f32");
        return this;
    }

    /** A bound tensor (an input) that no stage loads whole: read by {@link #loadRow}. */
    SplitText table(String t, int chip, int... shape) {
        tensors.add("{\"name\": \"" + t + "\", \"dtype\": \"f32\", \"shape\": " + list(shape) + ", \"chip\": " + chip + ", \"role\": \"input\"}");
        dims.put(t, shape);
        return this;
    }

    /** One row of rank-2 tensor {@code t} at row offset {@code row} (an offset text, e.g. {@code "@local"}) into a new {@code [1, cols]} buffer. */
    SplitText loadRow(int chip, String out, String t, String row) {
        int cols = dims.get(t)[1];
        buffer(out, chip, 1, cols);
        stages.add("{\"id\": \"load_" + out + "\", \"site\": " + site(chip) + ", \"ins\": [], \"outs\": [\"" + out + "\"], \"kind\": {\"type\": \"Load\", \"tensor\": \""
                + t + "\", \"pattern\": {\"type\": \"block\", \"origin\": [\"" + row + "\", 0], \"block\": [1, " + cols + "]}, \"numBlocks\": 1}}");
        return this;
    }

    /** A tensor of role {@code role} ({@code state}, {@code scratch}, ...) with no stage. */
    SplitText tensor(String t, String role, int chip, int... shape) {
        tensors.add("{\"name\": \"" + t + "\", \"dtype\": \"f32\", \"shape\": " + list(shape) + ", \"chip\": " + chip + ", \"role\": \"" + role + "\"}");
        return this;
    }

    /** An origin of offsets: an integer as a number, any other offset ({@code "pos"}, {@code "@slot"}) as text. */
    private static String origin(String... offsets) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < offsets.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(offsets[i].matches("-?[0-9]+") ? offsets[i] : "\"" + offsets[i] + "\"");
        }
        return sb.append(']').toString();
    }

    /** A block of tensor {@code t} at {@code origin} loaded into a new buffer {@code b} of shape {@code block}. */
    SplitText load(String b, int chip, String t, int[] block, String... origin) {
        buffer(b, chip, block);
        stages.add("{\"id\": \"load_" + b + "\", \"site\": " + site(chip) + ", \"ins\": [], \"outs\": [\"" + b + "\"], \"kind\": {\"type\": \"Load\", \"tensor\": \""
                + t + "\", \"pattern\": {\"type\": \"block\", \"origin\": " + origin(origin) + ", \"block\": " + list(block) + "}, \"numBlocks\": 1}}");
        return this;
    }

    /** Buffer {@code b} stored whole into tensor {@code t} at {@code origin}; the stage is {@code id}. */
    SplitText store(String id, int chip, String b, String t, String... origin) {
        int[] shape = dims.get(b);
        stages.add("{\"id\": \"" + id + "\", \"site\": " + site(chip) + ", \"ins\": [\"" + b + "\"], \"outs\": [], \"kind\": {\"type\": \"Store\", \"tensor\": \""
                + t + "\", \"pattern\": {\"type\": \"block\", \"origin\": " + origin(origin) + ", \"block\": " + list(shape) + "}, \"subBlocks\": " + list(shape) + "}}");
        return this;
    }

    /** A one-element i32 buffer {@code out} computed by a {@code Scalar} stage from {@code expr} over the inputs. */
    SplitText scalar(int chip, String out, String expr, String... ins) {
        buffer(out, "i32", chip, 1);
        stages.add("{\"id\": \"make_" + out + "\", \"site\": " + site(chip) + ", \"ins\": " + names(List.of(ins)) + ", \"outs\": [\"" + out
                + "\"], \"kind\": {\"type\": \"Scalar\", \"body\": [\"" + expr + "\"]}}");
        return this;
    }

    /** A one-element buffer {@code out} of {@code dtype} computed by a {@code Scalar} stage from {@code expr} over the inputs. */
    SplitText scalarOf(int chip, String out, String dtype, String expr, String... ins) {
        buffer(out, dtype, chip, 1);
        stages.add("{\"id\": \"make_" + out + "\", \"site\": " + site(chip) + ", \"ins\": " + names(List.of(ins)) + ", \"outs\": [\"" + out
                + "\"], \"kind\": {\"type\": \"Scalar\", \"body\": [\"" + expr + "\"]}}");
        return this;
    }

    /**
     * {@code numBlocks} blocks of shape {@code block} of tensor {@code t} streamed along {@code axis}
     * {@code stride} apart from {@code origin}, laid side by side along that axis in a new buffer {@code b}.
     */
    SplitText loadStreamed(String b, int chip, String t, int[] block, int axis, int stride, int numBlocks, String... origin) {
        int[] shape = block.clone();
        shape[axis] *= numBlocks;
        buffer(b, chip, shape);
        stages.add("{\"id\": \"load_" + b + "\", \"site\": " + site(chip) + ", \"ins\": [], \"outs\": [\"" + b + "\"], \"kind\": {\"type\": \"Load\", \"tensor\": \""
                + t + "\", \"pattern\": {\"type\": \"streamed\", \"origin\": " + origin(origin) + ", \"block\": " + list(block) + ", \"axis\": " + axis
                + ", \"stride\": " + stride + "}, \"numBlocks\": " + numBlocks + "}}");
        return this;
    }

    /** Rows {@code ids[i]} of rank-2 tensor {@code t}, columns {@code [origin, origin + cols)}, into a new buffer {@code out}. */
    SplitText gatherAt(int chip, String out, String t, String ids, int cols, String origin) {
        int[] shape = {dims.get(ids)[0], cols};
        buffer(out, dtypes.get(t), chip, shape);
        stages.add("{\"id\": \"gather_" + out + "\", \"site\": " + site(chip) + ", \"ins\": [], \"outs\": [\"" + out + "\"], \"kind\": {\"type\": \"Load\", \"tensor\": \""
                + t + "\", \"pattern\": {\"type\": \"indirect\", \"indexBuffer\": \"" + ids + "\", \"origin\": " + origin(origin) + ", \"block\": [" + cols + "]}, \"numBlocks\": 1}}");
        return this;
    }

    /** The store of buffer {@code b} into tensor {@code t} at {@code origin} (integers or affine offsets such as {@code "@slot"}). */
    SplitText storeAt(int chip, String t, String b, String... origin) {
        return store("store_" + b + "_in_" + t, chip, b, t, origin);
    }

    /** The window of {@code in} at {@code starts} of the given shape, a new buffer. */
    SplitText slice(int chip, String out, String in, int[] starts, int... shape) {
        buffer(out, dtypes.get(in), chip, shape);
        return compute(chip, out, "{\"type\": \"slice\", \"starts\": " + list(starts) + "}", in);
    }

    /** An output tensor of buffer {@code b}'s shape, and the store of {@code b} into it. */
    SplitText output(String t, int chip, String b) {
        int[] shape = dims.get(b);
        tensors.add("{\"name\": \"" + t + "\", \"dtype\": \"" + dtypes.get(b) + "\", \"shape\": " + list(shape) + ", \"chip\": " + chip + ", \"role\": \"output\"}");
        stages.add("{\"id\": \"store_" + t + "\", \"site\": " + site(chip) + ", \"ins\": [\"" + b + "\"], \"outs\": [], \"kind\": {\"type\": \"Store\", \"tensor\": \""
                + t + "\", \"pattern\": {\"type\": \"block\", \"origin\": " + list(new int[shape.length]) + ", \"block\": " + list(shape) + "}, \"subBlocks\": " + list(shape) + "}}");
        return this;
    }

    private SplitText compute(int chip, String out, String op, String... ins) {
        stages.add("{\"id\": \"make_" + out + "\", \"site\": " + site(chip) + ", \"ins\": " + names(List.of(ins)) + ", \"outs\": [\"" + out
                + "\"], \"kind\": {\"type\": \"Compute\", \"op\": " + op + "}}");
        return this;
    }

    /** {@code out = expr(ins)}, a new buffer of the given shape. */
    SplitText generic(int chip, String out, int[] shape, String expr, String... ins) {
        buffer(out, chip, shape);
        return compute(chip, out, "{\"type\": \"generic\", \"expr\": \"" + expr + "\"}", ins);
    }

    /** {@code out = expr(ins)} into a new buffer of another dtype (an integer index). */
    SplitText generic(int chip, String out, String dtype, int[] shape, String expr, String... ins) {
        buffer(out, dtype, chip, shape);
        return compute(chip, out, "{\"type\": \"generic\", \"expr\": \"" + expr + "\"}", ins);
    }

    SplitText reduce(int chip, String out, String fn, int axis, String in) {
        int[] shape = dims.get(in).clone();
        shape[axis] = 1;
        buffer(out, fn.equals("argmax") ? "i32" : dtypes.get(in), chip, shape);
        return compute(chip, out, "{\"type\": \"reduce\", \"fn\": \"" + fn + "\", \"axis\": " + axis + "}", in);
    }

    SplitText matmul(int chip, String out, String a, String b, boolean transposeA, boolean transposeB) {
        int[] da = dims.get(a);
        int[] db = dims.get(b);
        buffer(out, chip, da[transposeA ? 1 : 0], db[transposeB ? 0 : 1]);
        return compute(chip, out, "{\"type\": \"matmul\", \"transposeA\": " + transposeA + ", \"transposeB\": " + transposeB + "}", a, b);
    }

    /** {@code in} with its two axes swapped. */
    SplitText transpose(int chip, String out, String in) {
        int[] d = dims.get(in);
        buffer(out, dtypes.get(in), chip, d[1], d[0]);
        return compute(chip, out, "{\"type\": \"transpose\", \"perm\": [1, 0]}", in);
    }

    /** {@code in} with its axes permuted: axis i of the result is axis {@code perm[i]} of {@code in}. */
    SplitText permute(int chip, String out, String in, int... perm) {
        int[] d = dims.get(in);
        int[] shape = new int[perm.length];
        for (int i = 0; i < perm.length; i++) {
            shape[i] = d[perm[i]];
        }
        buffer(out, dtypes.get(in), chip, shape);
        return compute(chip, out, "{\"type\": \"transpose\", \"perm\": " + list(perm) + "}", in);
    }

    /** The parts side by side along {@code axis}. */
    SplitText concat(int chip, String out, int axis, String... parts) {
        int[] shape = dims.get(parts[0]).clone();
        shape[axis] = 0;
        for (String p : parts) {
            shape[axis] += dims.get(p)[axis];
        }
        buffer(out, dtypes.get(parts[0]), chip, shape);
        return compute(chip, out, "{\"type\": \"concat\", \"axis\": " + axis + "}", parts);
    }

    /** An all-reduce of {@code ins} (one per chip, in chip order) into new buffers {@code outs}, folded in order. */
    SplitText allReduce(String id, String pool, String tensor, List<String> ins, List<String> outs) {
        int[] chips = new int[outs.size()];
        for (int i = 0; i < chips.length; i++) {
            chips[i] = i;
        }
        return allReduce(id, pool, tensor, ins, outs, chips);
    }

    /** An all-reduce of {@code ins} (one per chip) into new buffers {@code outs}, output i on chip {@code chips[i]}, folded in order. */
    SplitText allReduce(String id, String pool, String tensor, List<String> ins, List<String> outs, int[] chips) {
        String fn = switch (pool) {
            case "sum" -> "add";
            default -> pool;
        };
        String combine = "in0";
        for (int i = 1; i < ins.size(); i++) {
            combine = fn + "(" + combine + ", in" + i + ")";
        }
        for (int i = 0; i < outs.size(); i++) {
            buffer(outs.get(i), dtypes.get(ins.get(i)), chips[i], dims.get(ins.get(i)));
        }
        stages.add("{\"id\": \"" + id + "\", \"site\": " + site(chips[0]) + ", \"ins\": " + names(ins) + ", \"outs\": " + names(outs)
                + ", \"kind\": {\"type\": \"AllReduce\", \"pool\": \"" + pool + "\", \"tensor\": \"" + tensor + "\", \"combine\": \"" + combine + "\"}}");
        return this;
    }

    /** Tensor {@code t} is {@code [start, end)} on {@code axis} of logical tensor {@code logical} (extent {@code extent} there). */
    SplitText shard(String t, String logical, int axis, int start, int end, int extent) {
        shards.add("{\"tensor\": \"" + t + "\", \"logical\": \"" + logical + "\", \"axis\": " + axis + ", \"start\": " + start + ", \"end\": " + end
                + ", \"extent\": " + extent + "}");
        return this;
    }

    /** The certificate's head layout: {@code layout} ("contiguous" or "interleaved") of {@code queryHeads} over {@code kvHeads}. */
    SplitText heads(String layout, int queryHeads, int kvHeads) {
        heads = "{\"layout\": \"" + layout + "\", \"queryHeads\": " + queryHeads + ", \"kvHeads\": " + kvHeads + "}";
        return this;
    }

    String programJson() {
        return "{\"format\": \"stagecheck-program\", \"version\": 1, \"name\": \"" + name + "\", \"machine\": {\"chips\": " + chips
                + ", \"width\": 1, \"height\": 1}, \"params\": [" + String.join(", ", params) + "], \"tensors\": [" + String.join(", ", tensors) + "], \"buffers\": ["
                + String.join(", ", buffers) + "], \"groups\": [], \"stages\": [" + String.join(", ", stages) + "]}";
    }

    Program program() {
        try {
            return new ProgramCodec().read(programJson());
        } catch (Exception e) {
            throw new IllegalStateException(name + ": " + e.getMessage() + "\n" + programJson(), e);
        }
    }

    Certificate certificate() {
        try {
            return new CertificateCodec().read("{\"format\": \"stagecheck-certificate\", \"version\": 1, \"shards\": [" + String.join(", ", shards)
                    + "]" + (heads == null ? "" : ", \"heads\": " + heads) + ", \"claims\": [\"well-formed\", \"unreduced-shard\", \"multicast\"]}");
        } catch (Exception e) {
            throw new IllegalStateException(name + ": " + e.getMessage(), e);
        }
    }

    /** This split judged against {@code parent}: the checker's verdict alone and given the parent, and the evaluator's. */
    Judged judge(SplitText parent) {
        Program p = program();
        Certificate c = certificate();
        Program u = parent.program();
        VerifyReport alone = new Verifier().verify(p, c, Parent.none());
        VerifyReport withParent = new Verifier().verify(p, c, Parent.unsplit(u));
        CorpusRuns.Judgement run = CorpusRuns.judge(new CorpusCase(name, Path.of(name), p, c, u));
        return new Judged(alone, withParent, run);
    }

    record Judged(VerifyReport alone, VerifyReport withParent, CorpusRuns.Judgement run) {
        boolean agrees() {
            return run.verdict() == CorpusRuns.Verdict.AGREES;
        }

        @Override
        public String toString() {
            return "alone " + alone.diagnostics() + "; with the parent " + withParent.diagnostics() + "; evaluator " + run;
        }
    }
}
