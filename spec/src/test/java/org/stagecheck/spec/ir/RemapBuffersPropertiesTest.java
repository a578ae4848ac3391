package org.stagecheck.spec.ir;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.spec.gen.SmallPrograms;

/**
 * {@link Program#remapBuffers} laws (brief, "Stages": a renumbering must map kind-internal
 * references with the ports, or a stage silently points at another buffer).
 */
class RemapBuffersPropertiesTest {

    /** A random permutation of the program's buffer names (a bijection of the names onto themselves). */
    private static Map<String, String> permutation(Program p, long seed) {
        List<String> names = p.buffers().stream().map(BufferDecl::name).toList();
        List<String> images = new ArrayList<>(names);
        Collections.shuffle(images, new Random(seed));
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < names.size(); i++) {
            m.put(names.get(i), images.get(i));
        }
        return m;
    }

    private static Map<String, String> inverse(Map<String, String> m) {
        Map<String, String> inv = new HashMap<>();
        m.forEach((k, v) -> inv.put(v, k));
        assertThat(inv).hasSameSizeAs(m);
        return inv;
    }

    @SeededProperty(tries = 100)
    void aPermutationThenItsInverseIsTheIdentity(long seed) {
        Program p = SmallPrograms.program(seed);
        Map<String, String> m = permutation(p, seed);
        assertThat(p.remapBuffers(m).remapBuffers(inverse(m))).isEqualTo(p);
    }

    @SeededProperty(tries = 100)
    void aRenamingToFreshNamesThenItsInverseIsTheIdentity(long seed) {
        Program p = SmallPrograms.program(seed);
        Map<String, String> m = new HashMap<>();
        p.buffers().forEach(b -> m.put(b.name(), "fresh/" + b.name()));
        assertThat(p.remapBuffers(m).remapBuffers(inverse(m))).isEqualTo(p);
    }

    @SeededProperty(tries = 100)
    void aRenamingChangesEveryPortAndEveryInternalReferenceExactlyByTheMap(long seed) {
        Program p = SmallPrograms.program(seed);
        Map<String, String> m = permutation(p, seed);
        Program q = p.remapBuffers(m);
        int internal = 0;
        for (int i = 0; i < p.stages().size(); i++) {
            Stage before = p.stages().get(i);
            Stage after = q.stages().get(i);
            assertThat(after.ins()).isEqualTo(before.ins().stream().map(m::get).toList());
            assertThat(after.outs()).isEqualTo(before.outs().stream().map(m::get).toList());
            List<InternalRef> expected = before.kind().internalRefs().stream()
                    .map(r -> new InternalRef(r.role(), r.field(), m.get(r.buffer()))).toList();
            assertThat(after.kind().internalRefs()).isEqualTo(expected);
            internal += expected.size();
            assertThat(after.kind().tag()).isEqualTo(before.kind().tag());
            assertThat(after.id()).isEqualTo(before.id());
            assertThat(after.site()).isEqualTo(before.site());
        }
        assertThat(q.buffers().stream().map(BufferDecl::name).toList())
                .isEqualTo(p.buffers().stream().map(b -> m.get(b.name())).toList());
        // Generated programs name index buffers, offset buffers, biases and spills.
        assertThat(internal).isGreaterThanOrEqualTo(4);
    }

    @SeededProperty(tries = 100)
    void aRenamingWithoutFixedPointsLeavesNoInternalReferenceUnchanged(long seed) {
        Program p = SmallPrograms.program(seed);
        Map<String, String> m = new HashMap<>();
        p.buffers().forEach(b -> m.put(b.name(), b.name() + "'"));
        Program q = p.remapBuffers(m);
        List<String> fields = new ArrayList<>();
        for (int i = 0; i < p.stages().size(); i++) {
            List<InternalRef> before = p.stages().get(i).kind().internalRefs();
            List<InternalRef> after = q.stages().get(i).kind().internalRefs();
            assertThat(after).hasSameSizeAs(before);
            for (int k = 0; k < before.size(); k++) {
                assertThat(after.get(k).buffer()).isNotEqualTo(before.get(k).buffer());
                fields.add(after.get(k).field());
            }
        }
        assertThat(fields).contains("pattern/indexBuffer", "pattern/origin/0", "op/bias", "op/spill");
    }

    @SeededProperty(tries = 50)
    void theIdentityMapAndTheEmptyMapChangeNothing(long seed) {
        Program p = SmallPrograms.program(seed);
        Map<String, String> id = new HashMap<>();
        p.buffers().forEach(b -> id.put(b.name(), b.name()));
        assertThat(p.remapBuffers(id)).isEqualTo(p);
        assertThat(p.remapBuffers(Map.of())).isEqualTo(p);
    }
}
