package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.spec.cert.BufferRemap;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.Generated;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;

/**
 * Use case 2 of the README, property-testing a compiler pass, end to end: here the pass renumbers
 * every buffer (as a register allocator would), and the laws are "still well-formed", "the
 * certificate of the remap verifies against the parent" and "same answer, bit for bit".
 */
class PassPropertyExampleTest {

    /** The pass under test: buffer i becomes "b<i>", ports and kind-internal references alike. */
    static Program renumberBuffers(Program p, Map<String, String> mapOut) {
        for (int i = 0; i < p.buffers().size(); i++) {
            mapOut.put(p.buffers().get(i).name(), "b" + i);
        }
        return p.remapBuffers(mapOut);
    }

    @SeededProperty(tries = 30)
    void renumberingBuffersKeepsTheAnswerAndVerifies(long seed) {
        Generated g = RandomPrograms.generateWithCertificate(seed, GenOptions.small());
        Program parent = g.program();
        Map<String, String> map = new LinkedHashMap<>();
        Program child = renumberBuffers(parent, map);

        assertThat(new Validator().validate(child)).isEmpty();
        Certificate cert = new Certificate(g.certificate().shards(),
                new BufferRemap(new ProgramCodec().hash(parent), map), g.certificate().claims());
        assertThat(new Verifier().verify(child, cert, Parent.remap(parent)).holds()).isTrue();

        Map<String, Long> params = new LinkedHashMap<>();
        for (Param prm : parent.params()) {
            params.put(prm.name(), prm.max());
        }
        var bound = RandomBindings.forProgram(parent, seed);
        Interpreter interp = new Interpreter(RunOptions.defaults());
        RunResult before = interp.run(parent, bound, params);
        RunResult after = interp.run(child, bound, params);
        // Same faults (a data fault such as an index outside its table stays one), same tensors.
        assertThat(after.faults().stream().map(d -> d.code() + "@" + d.stageIndex()).toList())
                .isEqualTo(before.faults().stream().map(d -> d.code() + "@" + d.stageIndex()).toList());
        for (var e : before.tensors().entrySet()) {
            assertThat(after.tensor(e.getKey()).bitEquals(e.getValue())).as(e.getKey()).isTrue();
        }
    }

    @SeededProperty(tries = 10)
    void aRenumberingThatForgetsKindInternalReferencesIsCaught(long seed) {
        Generated g = RandomPrograms.generateWithCertificate(seed, GenOptions.small());
        Program parent = g.program();
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < parent.buffers().size(); i++) {
            map.put(parent.buffers().get(i).name(), "b" + i);
        }
        // A buggy pass: renames declarations and ports, but not index/offset/bias/spill references.
        Program child = parent.withBuffers(parent.buffers().stream().map(b -> b.withName(map.get(b.name()))).toList())
                .withStages(parent.stages().stream().map(s -> new org.stagecheck.spec.ir.Stage(s.id(), s.site(),
                        s.ins().stream().map(map::get).toList(), s.outs().stream().map(map::get).toList(), s.kind())).toList());
        Certificate cert = new Certificate(g.certificate().shards(),
                new BufferRemap(new ProgramCodec().hash(parent), map), g.certificate().claims());
        assertThat(new Verifier().verify(child, cert, Parent.remap(parent)).codes()).contains("REMAP_INTERNAL_REF");
    }
}
