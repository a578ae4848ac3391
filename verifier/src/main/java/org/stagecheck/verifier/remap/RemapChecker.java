package org.stagecheck.verifier.remap;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.stagecheck.spec.cert.BufferRemap;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.InternalRef;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.Findings;

/**
 * The buffer-remap obligation with a parent (brief, "Certificates"): the child is exactly the
 * certificate's map applied to the parent, declarations, ports and kind-internal references
 * (index buffer, offset buffers, bias, spill) alike; the map is injective, and defined on every
 * buffer the parent declares or references. Without a remap in the certificate the map is the
 * identity (the child must equal the parent). Stage k of the child is compared with stage k of the
 * parent: a renumbering pass renames, it does not reorder.
 *
 * <p>Map look-ups are hash look-ups and each stage is compared once, so the check is linear.
 */
public final class RemapChecker {
    private final Program child;
    private final Program parent;
    private final BufferRemap remap;
    private final Findings findings;

    public RemapChecker(Program child, Program parent, BufferRemap remap, Findings findings) {
        this.child = child;
        this.parent = parent;
        this.remap = remap;
        this.findings = findings;
    }

    public void run() {
        if (remap != null && remap.parentHash() != null) {
            String actual = new ProgramCodec().hash(parent);
            if (!actual.equals(remap.parentHash())) {
                findings.atField(Code.REMAP_PARENT_HASH, "cert:/remap/parentHash", null,
                        "The remap was made from a parent with hash " + remap.parentHash() + ", but the parent given hashes to " + actual + ".");
            }
        }
        if (remap != null) {
            injective(remap, findings);
            defined();
        }
        UnaryOperator<String> f = remap == null ? n -> n : n -> remap.map().getOrDefault(n, n);
        declarations(f);
        stages(f);
    }

    /** Without a parent only the map itself can be judged: that it is injective. */
    public record MapOnly(Program child, BufferRemap remap, Findings findings) {
        public void run() {
            injective(remap, findings);
            // what the map sends a parent buffer to must be a buffer of this program, parent or not
            Set<String> declared = new java.util.HashSet<>();
            child.buffers().forEach(b -> declared.add(b.name()));
            for (var e : remap.map().entrySet()) {
                if (!declared.contains(e.getValue())) {
                    findings.atField(Code.REMAP_DECLS_DIFFER, "cert:/remap/map/" + e.getKey(), e.getValue(), "The remap sends parent buffer '"
                            + e.getKey() + "' to '" + e.getValue() + "', but this program declares no buffer '" + e.getValue() + "'.");
                }
            }
        }
    }

    private static void injective(BufferRemap remap, Findings findings) {
        Map<String, String> preimage = new HashMap<>();
        for (var e : remap.map().entrySet()) {
            String other = preimage.putIfAbsent(e.getValue(), e.getKey());
            if (other != null) {
                findings.atField(Code.REMAP_NOT_INJECTIVE, "cert:/remap/map/" + e.getKey(), e.getValue(),
                        "The remap sends both '" + other + "' and '" + e.getKey() + "' to '" + e.getValue() + "', so the child cannot tell them apart.");
            }
        }
    }

    private void defined() {
        Set<String> referenced = new LinkedHashSet<>();
        parent.buffers().forEach(b -> referenced.add(b.name()));
        for (Stage s : parent.stages()) {
            referenced.addAll(s.ins());
            referenced.addAll(s.outs());
            for (InternalRef r : s.kind().internalRefs()) {
                referenced.add(r.buffer());
            }
        }
        for (String b : referenced) {
            if (!remap.map().containsKey(b)) {
                findings.atField(Code.REMAP_UNDEFINED, "cert:/remap/map", b,
                        "The remap does not say where parent buffer '" + b + "' goes.");
            }
        }
    }

    private void declarations(UnaryOperator<String> f) {
        if (!child.machine().equals(parent.machine()) || !child.params().equals(parent.params())
                || !child.tensors().equals(parent.tensors()) || !child.groups().equals(parent.groups())) {
            findings.atField(Code.REMAP_DECLS_DIFFER, "", null,
                    "The child's machine, parameters, tensors or groups differ from the parent's; a remap renames buffers only.");
        }
        Map<String, BufferDecl> childBuffers = child.buffersByName();
        if (child.buffers().size() != parent.buffers().size()) {
            findings.atField(Code.REMAP_DECLS_DIFFER, "/buffers", null,
                    "The child declares " + child.buffers().size() + " buffers, the parent " + parent.buffers().size() + ".");
        }
        for (int k = 0; k < parent.buffers().size(); k++) {
            BufferDecl p = parent.buffers().get(k);
            BufferDecl expected = p.withName(f.apply(p.name()));
            BufferDecl got = childBuffers.get(expected.name());
            if (!expected.equals(got)) {
                findings.atField(Code.REMAP_DECLS_DIFFER, "/buffers", expected.name(),
                        "Parent buffer '" + p.name() + "' should be child buffer '" + expected.name() + "' (" + p.dtype() + p.shape() + " on "
                                + p.site() + "), but the child " + (got == null ? "declares no such buffer" : "declares it as " + got.dtype() + got.shape() + " on " + got.site()) + ".");
            }
        }
    }

    private void stages(UnaryOperator<String> f) {
        List<Stage> ps = parent.stages();
        List<Stage> cs = child.stages();
        if (ps.size() != cs.size()) {
            findings.atField(Code.REMAP_STAGE_COUNT, "/stages", null,
                    "The child has " + cs.size() + " stages, the parent " + ps.size() + "; a remap keeps every stage in place.");
        }
        int n = Math.min(ps.size(), cs.size());
        for (int i = 0; i < n; i++) {
            stage(i, ps.get(i), cs.get(i), f);
        }
    }

    private void stage(int i, Stage p, Stage c, UnaryOperator<String> f) {
        Stage expected = p.remapBuffers(f);
        UnaryOperator<String> blank = x -> "";
        boolean sameShape = expected.id().equals(c.id()) && expected.site().equals(c.site())
                && expected.ins().size() == c.ins().size() && expected.outs().size() == c.outs().size()
                && expected.kind().remapBuffers(blank).equals(c.kind().remapBuffers(blank));
        List<InternalRef> pRefs = p.kind().internalRefs();
        List<InternalRef> eRefs = expected.kind().internalRefs();
        List<InternalRef> cRefs = c.kind().internalRefs();
        if (!sameShape || eRefs.size() != cRefs.size()) {
            findings.atStage(Code.REMAP_STAGE_DIFFERS, i, c, null, null,
                    "Child stage '" + c.id() + "' is not parent stage '" + p.id() + "' with buffers renamed: its id, site, port count or kind differ.");
            return;
        }
        ports(i, c, "ins", p.ins(), expected.ins(), c.ins());
        ports(i, c, "outs", p.outs(), expected.outs(), c.outs());
        for (int k = 0; k < cRefs.size(); k++) {
            InternalRef want = eRefs.get(k);
            InternalRef got = cRefs.get(k);
            if (!Objects.equals(want.buffer(), got.buffer())) {
                findings.atStage(Code.REMAP_INTERNAL_REF, i, c, "/kind/" + got.field(), got.buffer(),
                        "The " + got.field() + " reference names '" + got.buffer() + "', but the parent's '" + pRefs.get(k).buffer()
                                + "' maps to '" + want.buffer() + "', so the stage reads another buffer than its parent did.");
            }
        }
    }

    private void ports(int i, Stage c, String which, List<String> parentPorts, List<String> want, List<String> got) {
        for (int k = 0; k < got.size(); k++) {
            if (!want.get(k).equals(got.get(k))) {
                findings.atStage(Code.REMAP_PORT, i, c, "/" + which + "/" + k, got.get(k),
                        "Port " + which + "[" + k + "] names '" + got.get(k) + "', but the parent's '" + parentPorts.get(k) + "' maps to '" + want.get(k) + "'.");
            }
        }
    }
}
