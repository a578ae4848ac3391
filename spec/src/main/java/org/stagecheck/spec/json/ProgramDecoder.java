package org.stagecheck.spec.json;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.ScalarBody;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/**
 * Decodes one program from its JSON tree for {@link ProgramCodec#read(JNode)} (docs/format.md):
 * every field checked for presence, type and range, the first error thrown with its JSON pointer
 * and line:column. One decoder reads one program: it remembers the expressions it has parsed, so
 * that the same text written on many stages ({@code "add(in0, in1)"}) is parsed once and its
 * immutable tree shared ("Reading speed").
 */
final class ProgramDecoder {
    /** Distinct expression texts remembered; past this, further texts are parsed every time. */
    private static final int MEMO_MAX = 4096;

    private final Map<String, Expr> parsedExprs = new HashMap<>();
    /** Equal sites, port lists and kinds of different stages share one instance. */
    private final Interner<Site> sites = new Interner<>(MEMO_MAX);
    private final Interner<List<String>> portLists = new Interner<>(MEMO_MAX);
    private final Interner<StageKind> kinds = new Interner<>(MEMO_MAX);


    /** Decodes a program from its JSON tree; the first format error is thrown. */
    Program program(JNode root) throws JsonFormatException {
        return program(root, null);
    }

    /**
     * Decodes a program from its JSON tree whose stages {@code streamed} (when not null) took
     * while it was read; the first format error is thrown, the same as from the whole tree.
     */
    Program program(JNode root, StageStream streamed) throws JsonFormatException {
        Fields f = new Fields(root, Pointer.ROOT);
        String format = f.string("format");
        if (!format.equals(ProgramCodec.FORMAT)) {
            throw new JsonFormatException("/format", f.required("format").pos(),
                    "expected format \"" + ProgramCodec.FORMAT + "\", found \"" + format + "\"");
        }
        int version = f.int32("version");
        if (version != ProgramCodec.VERSION) {
            throw new JsonFormatException("/version", f.required("version").pos(),
                    "unsupported version " + version + "; this stagecheck reads version " + ProgramCodec.VERSION);
        }
        String name = f.string("name");
        Machine machine = machine(f.required("machine"), f.path("machine"));
        List<Param> params = list(f.optional("params"), f.path("params"), this::param);
        List<TensorDecl> tensors = list(f.required("tensors"), f.path("tensors"), this::tensor);
        List<BufferDecl> buffers = list(f.required("buffers"), f.path("buffers"), this::buffer);
        List<Group> groups = list(f.optional("groups"), f.path("groups"), this::group);
        JNode stagesNode = f.required("stages");
        List<Stage> streamedStages = streamed == null ? null : streamed.stagesOf(stagesNode);
        List<Stage> stages = streamedStages != null ? streamedStages : list(stagesNode, f.path("stages"), this::stage);
        f.done();
        return new Program(name, machine, params, tensors, buffers, groups, stages);
    }

    @FunctionalInterface
    interface Decoder<T> {
        T decode(JNode n, Pointer path) throws JsonFormatException;
    }

    static <T> List<T> list(JNode n, Pointer path, Decoder<T> d) throws JsonFormatException {
        if (n == null) {
            return List.of();
        }
        List<JNode> items = Fields.array(n, path);
        List<T> out = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            out.add(d.decode(items.get(i), path.index(i)));
        }
        return out;
    }

    /** Runs a record constructor and reports its complaint as a format error at {@code n}. */
    static <T> T construct(JNode n, Pointer path, java.util.function.Supplier<T> ctor) throws JsonFormatException {
        try {
            return ctor.get();
        } catch (IllegalArgumentException | NullPointerException | ArithmeticException e) {
            throw Fields.invalid(n, path, e.getMessage() == null ? "invalid value" : e.getMessage());
        }
    }

    private Machine machine(JNode n, Pointer path) throws JsonFormatException {
        Fields f = new Fields(n, path);
        int chips = f.int32("chips");
        int width = f.int32("width");
        int height = f.int32("height");
        f.done();
        return construct(n, path, () -> new Machine(chips, width, height));
    }

    private Param param(JNode n, Pointer path) throws JsonFormatException {
        Fields f = new Fields(n, path);
        String name = f.string("name");
        long min = f.int64("min");
        long max = f.int64("max");
        f.done();
        return construct(n, path, () -> new Param(name, min, max));
    }

    private TensorDecl tensor(JNode n, Pointer path) throws JsonFormatException {
        Fields f = new Fields(n, path);
        String name = f.string("name");
        DType dtype = dtype(f.required("dtype"), f.path("dtype"));
        Shape shape = shape(f.required("shape"), f.path("shape"));
        int chip = f.int32("chip");
        TensorRole role = tensorRole(f.required("role"), f.path("role"));
        f.done();
        return new TensorDecl(name, dtype, shape, chip, role);
    }

    private BufferDecl buffer(JNode n, Pointer path) throws JsonFormatException {
        Fields f = new Fields(n, path);
        String name = f.string("name");
        DType dtype = dtype(f.required("dtype"), f.path("dtype"));
        Shape shape = shape(f.required("shape"), f.path("shape"));
        Site site = site(f.required("site"), f.path("site"));
        f.done();
        return new BufferDecl(name, dtype, shape, site);
    }

    private Group group(JNode n, Pointer path) throws JsonFormatException {
        Fields f = new Fields(n, path);
        String name = f.string("name");
        int chip = f.int32("chip");
        Fields r = new Fields(f.required("rect"), f.path("rect"));
        Rect rect = new Rect(r.int32("x"), r.int32("y"), r.int32("width"), r.int32("height"));
        r.done();
        Site sender = site(f.required("sender"), f.path("sender"));
        f.done();
        return new Group(name, chip, rect, sender);
    }

    Stage stage(JNode n, Pointer path) throws JsonFormatException {
        Fields f = new Fields(n, path);
        String id = f.string("id");
        Site site = sites.intern(site(f.required("site"), f.path("site")));
        // immutable already, so the Stage keeps these very lists
        List<String> ins = portLists.intern(List.copyOf(Fields.strings(f.required("ins"), f.path("ins"))));
        List<String> outs = portLists.intern(List.copyOf(Fields.strings(f.required("outs"), f.path("outs"))));
        StageKind kind = kinds.intern(kind(f.required("kind"), f.path("kind")));
        f.done();
        return new Stage(id, site, ins, outs, kind);
    }

    private StageKind kind(JNode n, Pointer path) throws JsonFormatException {
        Fields f = new Fields(n, path);
        String type = f.string("type");
        StageKind k = switch (type) {
            case "Load" -> {
                String tensor = f.string("tensor");
                AccessPattern p = pattern(f.required("pattern"), f.path("pattern"));
                int numBlocks = f.has("numBlocks") ? f.int32("numBlocks") : 1;
                f.optional("numBlocks");
                String mc = f.optionalString("multicast");
                yield construct(n, path, () -> new StageKind.Load(tensor, p, numBlocks, mc));
            }
            case "Store" -> {
                String tensor = f.string("tensor");
                AccessPattern p = pattern(f.required("pattern"), f.path("pattern"));
                List<JNode> sub = f.array("subBlocks");
                if (sub.size() != 2) {
                    throw Fields.invalid(f.required("subBlocks"), f.path("subBlocks"), "subBlocks is [rows, cols], found " + sub.size() + " numbers");
                }
                int r = Fields.int32(sub.get(0), f.path("subBlocks").index(0));
                int c = Fields.int32(sub.get(1), f.path("subBlocks").index(1));
                yield construct(n, path, () -> new StageKind.Store(tensor, p, r, c));
            }
            case "Recv" -> new StageKind.Recv(f.string("group"));
            case "AllReduce" -> {
                ReducePool pool = enumValue(ReducePool.class, f.required("pool"), f.path("pool"));
                String tensor = f.string("tensor");
                Expr combine = expr(f.required("combine"), f.path("combine"));
                yield new StageKind.AllReduce(pool, tensor, new ComputeOp.Generic(combine));
            }
            case "Compute" -> new StageKind.Compute(op(f.required("op"), f.path("op")));
            case "Scalar" -> {
                List<Expr> body = list(f.required("body"), f.path("body"), this::expr);
                yield new StageKind.Scalar(new ScalarBody(body));
            }
            // the document's "type" string: any other spelling is bad input
            default -> throw Fields.invalid(f.required("type"), f.path("type"),
                    "unknown stage kind \"" + type + "\"; expected one of Load, Store, Recv, AllReduce, Compute, Scalar");
        };
        f.done();
        return k;
    }

    private ComputeOp op(JNode n, Pointer path) throws JsonFormatException {
        Fields f = new Fields(n, path);
        String type = f.string("type");
        ComputeOp op = switch (type) {
            case "generic" -> new ComputeOp.Generic(expr(f.required("expr"), f.path("expr")));
            case "matmul" -> new ComputeOp.MatMul(f.bool("transposeA", false), f.bool("transposeB", false),
                    f.optionalString("bias"), f.optionalString("spill"));
            case "reduce" -> new ComputeOp.Reduce(enumValue(ReduceFn.class, f.required("fn"), f.path("fn")), f.int32("axis"));
            case "reshape" -> new ComputeOp.Reshape();
            case "transpose" -> new ComputeOp.Transpose(ints(f.required("perm"), f.path("perm")));
            case "slice" -> new ComputeOp.Slice(ints(f.required("starts"), f.path("starts")));
            case "concat" -> new ComputeOp.Concat(f.int32("axis"));
            // the document's "type" string: any other spelling is bad input
            default -> throw Fields.invalid(f.required("type"), f.path("type"),
                    "unknown compute op \"" + type + "\"; expected one of generic, matmul, reduce, reshape, transpose, slice, concat");
        };
        f.done();
        return op;
    }

    private AccessPattern pattern(JNode n, Pointer path) throws JsonFormatException {
        Fields f = new Fields(n, path);
        String type = f.string("type");
        AccessPattern p = switch (type) {
            case "block" -> new AccessPattern.Block(offsets(f.required("origin"), f.path("origin")),
                    shape(f.required("block"), f.path("block")));
            case "streamed" -> {
                List<Offset> origin = offsets(f.required("origin"), f.path("origin"));
                Shape block = shape(f.required("block"), f.path("block"));
                int axis = f.int32("axis");
                long stride;
                if (f.has("stride")) {
                    stride = f.int64("stride");
                } else {
                    f.optional("stride");
                    stride = axis >= 0 && axis < block.rank() ? block.dim(axis) : 0;
                }
                yield new AccessPattern.Streamed(origin, block, axis, stride);
            }
            case "indirect" -> new AccessPattern.Indirect(f.string("indexBuffer"),
                    offsets(f.required("origin"), f.path("origin")), shape(f.required("block"), f.path("block")));
            // the document's "type" string: any other spelling is bad input
            default -> throw Fields.invalid(f.required("type"), f.path("type"),
                    "unknown access pattern \"" + type + "\"; expected one of block, streamed, indirect");
        };
        f.done();
        return p;
    }

    private List<Offset> offsets(JNode n, Pointer path) throws JsonFormatException {
        return list(n, path, (item, p) -> switch (item) {
            case JNode.JNumber num -> Offset.constant(Fields.int64(item, p));
            case JNode.JString s -> {
                try {
                    yield OffsetSyntax.parse(s.value());
                } catch (TextSyntaxException e) {
                    throw new JsonFormatException(p.toString(), shift(s.pos(), e.offset()), "bad offset \"" + s.value() + "\": " + e.getMessage());
                }
            }
            case JNode.JObject _, JNode.JArray _, JNode.JBool _, JNode.JNull _ ->
                    throw Fields.wrongType(item, p, "an integer or an offset string such as \"64*pos + 8\"");
        });
    }

    private Expr expr(JNode n, Pointer path) throws JsonFormatException {
        String text = Fields.string(n, path);
        Expr known = parsedExprs.get(text);
        if (known != null) {
            return known;
        }
        try {
            Expr e = ExprSyntax.parse(text);
            if (parsedExprs.size() < MEMO_MAX) {
                parsedExprs.put(text, e);
            }
            return e;
        } catch (TextSyntaxException e) {
            throw new JsonFormatException(path.toString(), shift(n.pos(), e.offset()), "bad expression \"" + abbreviate(text) + "\": " + e.getMessage());
        }
    }

    /** Position of character {@code offset} inside a JSON string that starts at {@code start}. */
    private static Pos shift(Pos start, int offset) {
        return start.known() ? new Pos(start.line(), start.column() + 1 + offset) : start;
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }

    private static List<Integer> ints(JNode n, Pointer path) throws JsonFormatException {
        return list(n, path, Fields::int32);
    }

    static Shape shape(JNode n, Pointer path) throws JsonFormatException {
        List<Integer> dims = ints(n, path);
        return construct(n, path, () -> new Shape(dims));
    }

    static Site site(JNode n, Pointer path) throws JsonFormatException {
        List<JNode> items = Fields.array(n, path);
        if (items.size() != 3) {
            throw Fields.invalid(n, path, "a site is [chip, x, y], found " + items.size() + " numbers");
        }
        return new Site(Fields.int32(items.get(0), path.index(0)), Fields.int32(items.get(1), path.index(1)),
                Fields.int32(items.get(2), path.index(2)));
    }

    static DType dtype(JNode n, Pointer path) throws JsonFormatException {
        String s = Fields.string(n, path);
        DType d = DType.fromJsonName(s);
        if (d == null) {
            throw Fields.invalid(n, path, "unknown dtype \"" + s + "\"; expected one of " + java.util.Arrays.stream(DType.values()).map(DType::jsonName).collect(java.util.stream.Collectors.joining(", ")));
        }
        return d;
    }

    private static TensorRole tensorRole(JNode n, Pointer path) throws JsonFormatException {
        return enumValue(TensorRole.class, n, path);
    }

    static <E extends Enum<E>> E enumValue(Class<E> type, JNode n, Pointer path) throws JsonFormatException {
        String s = Fields.string(n, path);
        for (E e : type.getEnumConstants()) {
            if (isLowerCaseOf(s, e.name())) {
                return e;
            }
        }
        List<String> names = java.util.Arrays.stream(type.getEnumConstants()).map(e -> e.name().toLowerCase(java.util.Locale.ROOT)).toList();
        throw Fields.invalid(n, path, "unknown value \"" + s + "\"; expected one of " + names);
    }

    /**
     * {@code name.toLowerCase(Locale.ROOT).equals(s)} without making the lower-case copy, for
     * the ASCII names of Java enum constants (an upper-case ASCII letter maps to its lower case,
     * every other character of such a name to itself).
     */
    private static boolean isLowerCaseOf(String s, String name) {
        if (s.length() != name.length()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = name.charAt(i);
            char lower = c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
            if (s.charAt(i) != lower) {
                return false;
            }
        }
        return true;
    }
}
