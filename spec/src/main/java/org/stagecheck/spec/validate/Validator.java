package org.stagecheck.spec.validate;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.rules.Rule;

/**
 * Structural validation of a program (brief "Stages"): every reference resolves, each
 * kind's ports have the shapes and dtypes it needs, expressions type-check and broadcast, sub-blocks
 * tile, blocks fit their tensors for every parameter value in range, names are unique, sizes can be
 * held. It judges well-formedness only; the certificate's obligations (partial sums, remaps,
 * multicast ordering) are the verifier's. Every finding is collected: validation never stops at the
 * first, and never throws for any program the codec can build. Every finding is a broken
 * {@link org.stagecheck.spec.rules.Rule} under its one code; the Compute ops' shape and dtype rules
 * are {@link org.stagecheck.spec.rules.OpRules}, which the backends and the author's builder share.
 */
public final class Validator {
    /**
     * The most elements one tensor or buffer may have: the evaluator holds each in one Java array,
     * and 2^31-1 elements is the most an array can index.
     */
    public static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;

    public List<Diagnostic> validate(Program p) {
        Findings f = new Findings();
        String programNameProblem = NameRules.programNameProblem(p.name());
        if (programNameProblem != null) {
            f.program(Rule.BAD_NAME, "/name", "program name " + NameRules.quote(p.name()) + " " + programNameProblem);
        }
        Declarations d = declarations(p, f);
        KindChecks kinds = new KindChecks(d, f);
        // sized for every stage at once: growing it stage by stage rehashed it about 20 times at 10^6 stages
        Set<String> stageIds = HashSet.newHashSet(p.stages().size());
        for (int i = 0; i < p.stages().size(); i++) {
            Stage s = p.stages().get(i);
            String idProblem = NameRules.problem(s.id());
            if (idProblem != null) {
                f.stage(Rule.BAD_NAME, i, s, "id", null, "stage id " + NameRules.quote(s.id()) + " " + idProblem);
            }
            if (!stageIds.add(s.id())) {
                f.stage(Rule.DUPLICATE_ID, i, s, "id", null, "stage id '" + s.id() + "' is used by an earlier stage");
            }
            if (!p.machine().contains(s.site())) {
                f.stage(Rule.BAD_SITE, i, s, "site", null, "site " + s.site() + " is not a core of the " + describe(p.machine()) + " machine");
            }
            try {
                kinds.check(i, s);
            } catch (StackOverflowError e) {
                // typing recurses over the expression tree: a tree too deep is a finding, never a thrown error
                f.stage(Rule.EXPR_TOO_DEEP, i, s, "kind", null, "an expression of this stage nests too deeply to check");
            }
        }
        return f.toList();
    }

    /** Declarations by name, first one winning, with duplicates and bad sizes reported. */
    record Declarations(Map<String, TensorDecl> tensors, Map<String, BufferDecl> buffers,
                        Map<String, Group> groups, Map<String, Param> params) {}

    private static Declarations declarations(Program p, Findings f) {
        Machine m = p.machine();
        Map<String, Param> params = new HashMap<>();
        for (int i = 0; i < p.params().size(); i++) {
            Param prm = p.params().get(i);
            if (params.putIfAbsent(prm.name(), prm) != null) {
                f.program(Rule.DUPLICATE_ID, "/params/" + i + "/name", "parameter '" + prm.name() + "' is declared twice");
            }
        }
        Map<String, TensorDecl> tensors = new HashMap<>();
        for (int i = 0; i < p.tensors().size(); i++) {
            TensorDecl t = p.tensors().get(i);
            String at = "/tensors/" + i;
            String nameProblem = NameRules.problem(t.name());
            if (nameProblem != null) {
                f.program(Rule.BAD_NAME, at + "/name", "tensor name " + NameRules.quote(t.name()) + " " + nameProblem);
            }
            if (tensors.putIfAbsent(t.name(), t) != null) {
                f.program(Rule.DUPLICATE_ID, at + "/name", "tensor '" + t.name() + "' is declared twice");
            }
            if (t.chip() < 0 || t.chip() >= m.chips()) {
                f.program(Rule.BAD_CHIP, at + "/chip", "tensor '" + t.name() + "' is on chip " + t.chip() + " but the machine has " + m.chips() + " chip(s)");
            }
            checkSize(f, at + "/shape", "tensor '" + t.name() + "'", t.shape());
        }
        Map<String, BufferDecl> buffers = new HashMap<>();
        for (int i = 0; i < p.buffers().size(); i++) {
            BufferDecl b = p.buffers().get(i);
            String at = "/buffers/" + i;
            if (buffers.putIfAbsent(b.name(), b) != null) {
                f.program(Rule.DUPLICATE_ID, at + "/name", "buffer '" + b.name() + "' is declared twice");
            }
            if (!m.contains(b.site())) {
                f.program(Rule.BAD_SITE, at + "/site", "buffer '" + b.name() + "' is on " + b.site() + ", not a core of the " + describe(m) + " machine");
            }
            checkSize(f, at + "/shape", "buffer '" + b.name() + "'", b.shape());
        }
        Map<String, Group> groups = new HashMap<>();
        for (int i = 0; i < p.groups().size(); i++) {
            Group g = p.groups().get(i);
            String at = "/groups/" + i;
            if (groups.putIfAbsent(g.name(), g) != null) {
                f.program(Rule.DUPLICATE_ID, at + "/name", "group '" + g.name() + "' is declared twice");
            }
            var r = g.rect();
            if (g.chip() < 0 || g.chip() >= m.chips() || r.width() < 1 || r.height() < 1
                    || r.x() < 0 || r.y() < 0 || (long) r.x() + r.width() > m.width() || (long) r.y() + r.height() > m.height()) {
                f.program(Rule.BAD_GROUP, at + "/rect", "group '" + g.name() + "' is not a non-empty rectangle of chip " + g.chip() + "'s " + m.width() + "x" + m.height() + " grid");
            } else if (g.sender().chip() != g.chip() || !m.contains(g.sender())) {
                f.program(Rule.BAD_GROUP, at + "/sender", "group '" + g.name() + "' has sender " + g.sender() + ", which is not a core of its chip " + g.chip());
            } else if (g.receivers().isEmpty()) {
                f.program(Rule.BAD_GROUP, at + "/rect", "group '" + g.name() + "' has no receiver: its rectangle holds only the sender");
            }
        }
        return new Declarations(tensors, buffers, groups, params);
    }

    private static void checkSize(Findings f, String field, String what, Shape shape) {
        long n;
        try {
            n = shape.elementCount();
        } catch (ArithmeticException e) {
            n = Long.MAX_VALUE;
        }
        if (n > MAX_ELEMENTS) {
            f.program(Rule.SIZE_TOO_LARGE, field, what + " has shape " + shape + ", more than the " + MAX_ELEMENTS + " elements one tensor may hold");
        }
    }

    static String describe(Machine m) {
        return m.chips() + "-chip " + m.width() + "x" + m.height();
    }
}
