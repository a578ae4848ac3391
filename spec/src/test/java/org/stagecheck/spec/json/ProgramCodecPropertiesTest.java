package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.stagecheck.proptest.Draw;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.spec.gen.SmallPrograms;
import org.stagecheck.spec.ir.Program;
import org.junit.jupiter.api.Tag;

/** ProgramCodec laws over random well-formed programs holding all six stage kinds. */
@Tag("slow")
class ProgramCodecPropertiesTest {
    private final ProgramCodec codec = new ProgramCodec();

    /**
     * A program whose name is any string: escapes, quotes, control characters, non-ASCII, astral
     * code points, lone surrogates.
     */
    static Program oddlyNamed(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Program p = SmallPrograms.program(r.nextLong());
        String name = switch (r.nextInt(5)) {
            case 0 -> Draw.string(r, '\u0000', '\u007f', 0, 30);
            case 1 -> Draw.string(r, '\u0000', '\u001f', 0, 5);
            case 2 -> Draw.string(r, "\"\\/\b\f\n\r\tπ€", 0, 10);
            case 3 -> "x" + Character.toString(r.nextInt(0x10000, 0x110000)) + "y";
            // a lone surrogate is legal JSON ("\ud800") and must survive writing too
            default -> "x" + (char) r.nextInt(0xD800, 0xE000) + "y";
        };
        return new Program(name, p.machine(), p.params(), p.tensors(), p.buffers(), p.groups(), p.stages());
    }

    @SeededProperty(tries = 120)
    void writeThenReadGivesAnEqualProgram(long seed) throws JsonFormatException {
        Program p = SmallPrograms.program(seed);
        assertThat(codec.read(codec.writeString(p))).isEqualTo(p);
    }

    @SeededProperty(tries = 60)
    void readingFromBytesEqualsReadingFromText(long seed) throws JsonFormatException {
        Program p = SmallPrograms.program(seed);
        byte[] bytes = codec.write(p);
        Program fromBytes = codec.read(new JsonReader().read(new ByteArrayInputStream(bytes)));
        assertThat(fromBytes).isEqualTo(p);
    }

    @SeededProperty(tries = 120)
    void canonicalBytesAreAFixedPointAndTheHashIsStable(long seed) throws JsonFormatException {
        Program p = SmallPrograms.program(seed);
        byte[] once = codec.write(p);
        byte[] twice = codec.write(codec.read(new String(once, StandardCharsets.UTF_8)));
        assertThat(twice).isEqualTo(once);
        assertThat(codec.hash(codec.read(new String(once, StandardCharsets.UTF_8)))).isEqualTo(codec.hash(p));
        assertThat(codec.hash(p)).isEqualTo(ProgramCodec.sha256(once)).matches("sha256:[0-9a-f]{64}");
        assertThat(once[once.length - 1]).isEqualTo((byte) '\n');
    }

    @SeededProperty(tries = 150)
    void anyProgramNameSurvivesTheRoundTrip(long seed) throws JsonFormatException {
        Program p = oddlyNamed(seed);
        byte[] once = codec.write(p);
        Program back = codec.read(new String(once, StandardCharsets.UTF_8));
        assertThat(back.name()).isEqualTo(p.name());
        assertThat(codec.write(back)).isEqualTo(once);
    }

    @SeededProperty(tries = 40)
    void differentProgramsHaveDifferentHashes(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Program a = SmallPrograms.program(r.nextLong());
        Program b = SmallPrograms.program(r.nextLong());
        if (!a.equals(b)) {
            assertThat(codec.hash(a)).isNotEqualTo(codec.hash(b));
        } else {
            assertThat(codec.hash(a)).isEqualTo(codec.hash(b));
        }
    }
}
