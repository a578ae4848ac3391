package org.stagecheck.cuda.lower;

import java.util.List;
import java.util.Map;

import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;

/**
 * The writing context of one stage's kernels: the program, its memory plan, the stage, the
 * kernels written so far and the source text. Outputs that the stage also reads are redirected
 * to their staging areas ({@link #out}); {@link ProgramLowering} adds the copy back.
 */
final class Emit {
    final Program program;
    final MemoryPlan plan;
    final int index;
    final Stage stage;
    private final String prefix;
    private final Map<String, String> staged;
    private final List<Kernel> kernels;
    private final StringBuilder src;
    private int depth;

    Emit(Program program, MemoryPlan plan, int index, Stage stage, String prefix, Map<String, String> staged,
         List<Kernel> kernels, StringBuilder src) {
        this.program = program;
        this.plan = plan;
        this.index = index;
        this.stage = stage;
        this.prefix = prefix;
        this.staged = staged;
        this.kernels = kernels;
        this.src = src;
    }

    /** Where the stage reads buffer {@code name}. */
    Placed in(String name) {
        return plan.buffer(name);
    }

    /** The declaration of buffer {@code name} as placed (dtype and shape), for the language's rules. */
    BufferDecl decl(String name) {
        Placed p = plan.buffer(name);
        return new BufferDecl(name, p.dtype(), p.shape(), stage.site());
    }

    /** Where the stage writes buffer {@code name}: its staging area when the stage also reads it. */
    Placed out(String name) {
        String key = staged.get(name);
        return key == null ? plan.buffer(name) : plan.extra(key);
    }

    /**
     * Opens kernel {@code suffix} of this stage over {@code threads} elements: the comment naming
     * the stage, the signature shared by every kernel, and the early return after a fault.
     */
    void begin(String suffix, long threads, String... comments) {
        String name = prefix + "k" + index + "_" + CText.ident(stage.id()) + suffix;
        kernels.add(new Kernel(index, stage.id(), name, threads));
        line("");
        line("// ---- stage " + index + " '" + CText.comment(stage.id()) + "' (" + stage.kind().tag() + ") on core "
                + stage.site() + (suffix.isEmpty() ? "" : ", " + suffix.substring(1)));
        for (String c : comments) {
            if (c.isEmpty()) {
                continue;
            }
            line("// " + CText.comment(c));
        }
        StringBuilder sig = new StringBuilder("SC_KERNEL " + name + "(long long n");
        for (int c = 0; c < program.machine().chips(); c++) {
            sig.append(", char* chip").append(c);
        }
        sig.append(", const long long* P, long long* F) {");
        line(sig.toString());
        depth++;
        line("if (F[0]) return; // an earlier stage faulted: the run stops there");
    }

    void end() {
        close();
    }

    void line(String s) {
        if (s.isEmpty()) {
            src.append('\n');
            return;
        }
        src.append("    ".repeat(depth)).append(s).append('\n');
    }

    void open(String s) {
        line(s);
        depth++;
    }

    void close() {
        depth--;
        line("}");
    }

    /** Declares {@code const T* name = ...;} (or writable) for a region, with a comment saying what it is. */
    void pointer(String name, Placed p, boolean writable) {
        line((writable ? "" : "const ") + p.cType() + "* " + name + " = " + p.pointer(writable) + "; // "
                + CText.comment(p.describe()));
    }

    /** Declares {@code long long <var>0..} = the coordinates of flat index {@code flat} in row-major {@code dims}. */
    void coordinates(String flat, String var, int[] dims) {
        long stride = 1;
        String[] parts = new String[dims.length];
        for (int a = dims.length - 1; a >= 0; a--) {
            String v = stride == 1 ? flat : flat + " / " + stride;
            parts[a] = var + a + " = " + (a == 0 ? v : v + " % " + dims[a]);
            stride *= Math.max(dims[a], 1);
        }
        if (dims.length > 0) {
            line("long long " + String.join(", ", parts) + ";");
        }
    }

    /** The C source of the 64-bit value of one offset term's source (parameter or one-element i32 buffer). */
    String termSource(Offset.Term t) {
        return switch (t) {
            case Offset.Term.OfParam p -> "P[" + plan.param(p.param()) + "]";
            case Offset.Term.OfBuffer b -> "(long long)" + in(b.buffer()).pointer(false) + "[0]";
        };
    }

    /**
     * Declares {@code long long o<a>} = the offset of origin axis {@code a}, read at run time from
     * the parameter array or buffers (never baked in), faulting on 64-bit overflow.
     */
    void origin(int a, Offset o, String faultField) {
        line("long long o" + a + " = " + CText.longLiteral(o.constant()) + "; // origin axis " + a + ": " + CText.comment(o.toString()));
        if (o.terms().isEmpty()) {
            return;
        }
        line("{");
        depth++;
        line("int ovf = 0;");
        for (Offset.Term t : o.terms()) {
            line("o" + a + " = sc_off_term(o" + a + ", " + CText.longLiteral(t.coefficient()) + ", " + termSource(t) + ", &ovf);");
        }
        line("if (ovf) { sc_fault(F, " + index + ", SC_FAULT_OFFSET_OVERFLOW, " + faultField + ", 0); return; }");
        close();
    }

    /** Row-major strides of {@code shape}. */
    static long[] strides(Shape shape) {
        return shape.strides();
    }

    /** {@code sum(idx_a * stride_a)} as C. */
    static String linear(String[] idx, long[] strides) {
        if (idx.length == 0) {
            return "0";
        }
        StringBuilder sb = new StringBuilder();
        for (int a = 0; a < idx.length; a++) {
            if (a > 0) {
                sb.append(" + ");
            }
            sb.append(strides[a] == 1 ? idx[a] : idx[a] + " * " + strides[a]);
        }
        return sb.toString();
    }
}
