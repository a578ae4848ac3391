package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.stagecheck.spec.gen.ProgramArbitraries;
import org.stagecheck.spec.ir.Program;

/** ProgramCodec laws over random well-formed programs holding all six stage kinds (issue #2). */
class ProgramCodecPropertiesTest {
    private final ProgramCodec codec = new ProgramCodec();

    @Provide
    Arbitrary<Program> programs() {
        return ProgramArbitraries.programs();
    }

    /** Programs whose name is any string: escapes, quotes, control characters, non-ASCII, astral code points,
     * lone surrogates. */
    @Provide
    Arbitrary<Program> oddlyNamedPrograms() {
        Arbitrary<String> names = Arbitraries.oneOf(
                Arbitraries.strings().ascii().ofMaxLength(30),
                Arbitraries.strings().withCharRange('\u0000', '\u001f').ofMaxLength(5),
                Arbitraries.strings().withChars("\"\\/\b\f\n\r\tπ€").ofMaxLength(10),
                Arbitraries.integers().between(0x10000, 0x10FFFF).map(cp -> "x" + Character.toString(cp) + "y"),
                // a lone surrogate is legal JSON ("\ud800") and must survive writing too
                Arbitraries.chars().range('\uD800', '\uDFFF').map(c -> "x" + c + "y"));
        return ProgramArbitraries.programs().flatMap(p -> names.map(n -> new Program(n, p.machine(), p.params(),
                p.tensors(), p.buffers(), p.groups(), p.stages())));
    }

    @Property(tries = 120)
    void writeThenReadGivesAnEqualProgram(@ForAll("programs") Program p) throws JsonFormatException {
        assertThat(codec.read(codec.writeString(p))).isEqualTo(p);
    }

    @Property(tries = 60)
    void readingFromBytesEqualsReadingFromText(@ForAll("programs") Program p) throws JsonFormatException {
        byte[] bytes = codec.write(p);
        Program fromBytes = codec.read(new JsonReader().read(new ByteArrayInputStream(bytes)));
        assertThat(fromBytes).isEqualTo(p);
    }

    @Property(tries = 120)
    void canonicalBytesAreAFixedPointAndTheHashIsStable(@ForAll("programs") Program p) throws JsonFormatException {
        byte[] once = codec.write(p);
        byte[] twice = codec.write(codec.read(new String(once, StandardCharsets.UTF_8)));
        assertThat(twice).isEqualTo(once);
        assertThat(codec.hash(codec.read(new String(once, StandardCharsets.UTF_8)))).isEqualTo(codec.hash(p));
        assertThat(codec.hash(p)).isEqualTo(ProgramCodec.sha256(once)).matches("sha256:[0-9a-f]{64}");
        assertThat(once[once.length - 1]).isEqualTo((byte) '\n');
    }

    @Property(tries = 150)
    void anyProgramNameSurvivesTheRoundTrip(@ForAll("oddlyNamedPrograms") Program p) throws JsonFormatException {
        byte[] once = codec.write(p);
        Program back = codec.read(new String(once, StandardCharsets.UTF_8));
        assertThat(back.name()).isEqualTo(p.name());
        assertThat(codec.write(back)).isEqualTo(once);
    }

    @Property(tries = 40)
    void differentProgramsHaveDifferentHashes(@ForAll("programs") Program a, @ForAll("programs") Program b) {
        if (!a.equals(b)) {
            assertThat(codec.hash(a)).isNotEqualTo(codec.hash(b));
        } else {
            assertThat(codec.hash(a)).isEqualTo(codec.hash(b));
        }
    }
}
