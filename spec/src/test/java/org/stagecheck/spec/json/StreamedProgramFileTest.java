package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;

/**
 * {@link ProgramFile#read} decodes the stages while it streams them and keeps no tree of them
 * (docs/format.md, "Reading speed"). Judged against decoding the whole tree
 * ({@code ProgramCodec.read(JsonReader.read(file))}): the same program or the same error (message,
 * pointer, line:column) on valid and broken files alike, and every value placed at the same
 * line:column. Each is read with its stages decoded on the reading thread and on a second thread.
 */
class StreamedProgramFileTest {
    private final ProgramCodec codec = new ProgramCodec();

    @TempDir
    Path dir;

    /** A generated program holding every kind of stage, as canonical text. */
    private String programText(long seed) {
        return codec.writeString(RandomPrograms.generate(seed, GenOptions.small()));
    }

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text, StandardCharsets.UTF_8);
    }

    /** What reading the whole tree gives: the program, or the error as message, pointer and position. */
    private static String wholeTreeOutcome(Path file) {
        try {
            return "program " + new ProgramCodec().read(new JsonReader().read(file));
        } catch (JsonFormatException e) {
            return describe(e);
        }
    }

    /**
     * What reading the file streamed gives; the same whether its stages are decoded on the reading
     * thread or, past the first stage, on a second thread in batches of two (through a queue that
     * fills up), as past the first {@value StageStream#INLINE} stages of a long program.
     */
    private static String streamedOutcome(Path file) {
        String inline = streamedOutcome(file, Integer.MAX_VALUE, 1);
        assertThat(streamedOutcome(file, 1, 2)).as("decoded on a second thread").isEqualTo(inline);
        assertThat(streamedOutcome(file, StageStream.INLINE, StageStream.BATCH)).as("as read(file)").isEqualTo(inline);
        return inline;
    }

    private static String streamedOutcome(Path file, int inline, int batch) {
        try {
            return "program " + ProgramFile.read(file, inline, batch).program();
        } catch (JsonFormatException e) {
            return describe(e);
        } catch (RuntimeException e) {
            return fail("reading " + file + " threw " + e, e);
        }
    }

    private static String describe(JsonFormatException e) {
        return "error " + e.getMessage() + " | pointer " + e.pointer() + " | at " + e.pos();
    }

    @Test
    void aBadStageIsReportedOnlyAfterMalformedJsonLaterInTheFile() throws IOException {
        String text = programText(3);
        // stage 0's id becomes a number, and the file is cut before its end
        String broken = text.replaceFirst("\"id\": \"[^\"]*\"", "\"id\": 7");
        Path file = write("cut.json", broken.substring(0, broken.length() - 3));
        assertThat(streamedOutcome(file)).startsWith("error").contains("malformed JSON").isEqualTo(wholeTreeOutcome(file));
    }

    @Test
    void aBadStageIsReportedOnlyAfterADuplicateKeyInALaterStage() throws IOException {
        String text = programText(4);
        String broken = text.replaceFirst("\"id\": \"[^\"]*\"", "\"id\": 7");
        // the second stage gets its "ins" twice
        int second = broken.indexOf("\"id\":", broken.indexOf("\"id\":") + 1);
        broken = broken.substring(0, second) + "\"ins\": [], " + broken.substring(second);
        Path file = write("dup.json", broken);
        assertThat(streamedOutcome(file)).contains("Duplicate field 'ins'").isEqualTo(wholeTreeOutcome(file));
    }

    @Test
    void aFieldCheckedBeforeTheStagesWinsEvenWhenWrittenAfterThem() throws IOException {
        String text = programText(5);
        String broken = text.replaceFirst("\"id\": \"[^\"]*\"", "\"id\": 7")
                .replaceFirst("\"format\": \"stagecheck-program\",", "");
        int end = broken.lastIndexOf('}');
        broken = broken.substring(0, end) + ", \"format\": \"something-else\"}\n";
        Path file = write("late-format.json", broken);
        assertThat(streamedOutcome(file)).contains("expected format").isEqualTo(wholeTreeOutcome(file));
    }

    @Test
    void theFirstBadStageIsTheOneReported() throws IOException {
        String text = programText(6);
        int lastIns = text.lastIndexOf("\"ins\": [") + "\"ins\": [".length();
        String broken = (text.substring(0, lastIns) + "1, " + text.substring(lastIns)).replaceFirst("\"id\": \"[^\"]*\"", "\"id\": 7");
        Path file = write("two-bad.json", broken);
        String outcome = streamedOutcome(file);
        assertThat(outcome).contains("(at /stages/0/").isEqualTo(wholeTreeOutcome(file));
    }

    @Test
    void stagesThatAreNotAnArrayAreReportedAsBefore() throws IOException {
        for (String stages : List.of("{}", "3", "null", "[1, 2]", "[[]]", "[{\"id\": \"a\"}]")) {
            String text = programText(7);
            int at = text.indexOf("\"stages\": [");
            String broken = text.substring(0, at) + "\"stages\": " + stages + "\n}\n";
            Path file = write("stages.json", broken);
            assertThat(streamedOutcome(file)).as(stages).startsWith("error").isEqualTo(wholeTreeOutcome(file));
        }
    }

    @Test
    @Tag("slow") // a sweep of damaged files
    void randomlyDamagedProgramsGiveTheSameProgramOrTheSameError() throws IOException {
        SplittableRandom rnd = new SplittableRandom(26);
        String[] inserts = {"{", "}", "[", "]", ",", ":", "\"", "0", "-1", "x", "\"a\": 1, ", "null", "1e99", "\"id\": \"q\", "};
        int errors = 0;
        for (int round = 0; round < 300; round++) {
            String text = programText(round % 12);
            int at = rnd.nextInt(text.length());
            String damaged = switch (rnd.nextInt(4)) {
                case 0 -> text.substring(0, at) + inserts[rnd.nextInt(inserts.length)] + text.substring(at);
                case 1 -> text.substring(0, at) + text.substring(Math.min(text.length(), at + 1 + rnd.nextInt(8)));
                case 2 -> text.substring(0, at) + inserts[rnd.nextInt(inserts.length)] + text.substring(Math.min(text.length(), at + 1));
                default -> {
                    // a number or string of a stage changed to another type
                    int stages = text.indexOf("\"stages\"");
                    int p = stages + rnd.nextInt(text.length() - stages);
                    int colon = text.indexOf(": ", p);
                    yield colon < 0 ? text : text.substring(0, colon + 2) + "true, \"zz\": " + text.substring(colon + 2);
                }
            };
            Path file = write("damaged.json", damaged);
            String streamed = streamedOutcome(file);
            assertThat(streamed).as("round %d", round).isEqualTo(wholeTreeOutcome(file));
            errors += streamed.startsWith("error") ? 1 : 0;
        }
        // the damage is real: most rounds are errors, in the stages and elsewhere
        assertThat(errors).isGreaterThan(200);
    }

    @Test
    void everyValueIsPlacedWhereTheWholeTreePlacesIt() throws IOException {
        List<String> texts = new ArrayList<>();
        for (long seed = 0; seed < 4; seed++) {
            String canonical = programText(seed);
            texts.add(canonical);
            texts.add(canonical.replaceAll("\n\\s*", ""));
            texts.add(canonical.replace("\n", "\r\n  "));
        }
        // multi-byte characters before and inside stages, on the line of a stage and on others
        Program named = RandomPrograms.generate(9, GenOptions.small());
        String withNames = codec.writeString(named).replace("\"id\": \"", "\"id\": \"π€𝄞-");
        texts.add(withNames);
        texts.add(withNames.replaceAll("\n\\s*", ""));
        int checked = 0;
        for (int t = 0; t < texts.size(); t++) {
            Path file = write("placed" + t + ".json", texts.get(t));
            ProgramFile streamed;
            JNode whole;
            try {
                streamed = ProgramFile.read(file, 1, 2);
                whole = new JsonReader().read(file);
            } catch (JsonFormatException e) {
                throw new AssertionError("text " + t + " does not read: " + e.getMessage(), e);
            }
            SourceMap wholeMap = new SourceMap(file.toString(), whole);
            List<String> pointers = new ArrayList<>();
            pointers(whole, "", pointers);
            int stages = streamed.program().stages().size();
            // pointers that leave the document: the nearest value on the way, as before
            pointers.addAll(List.of("/stages/0/kind/nothing/here", "/stages/" + stages, "/stages/-1", "/stages/x", "/stages/+0/id",
                    "/stages/0/ins/99", "/stages", "", "/"));
            for (String pointer : pointers) {
                assertThat(streamed.locate(pointer)).as("text %d, %s", t, pointer).isEqualTo(wholeMap.locate(pointer));
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(1000);
    }

    private static void pointers(JNode n, String at, List<String> out) {
        out.add(at);
        switch (n) {
            case JNode.JObject o -> o.fields().forEach((k, v) -> pointers(v, at + "/" + k, out));
            case JNode.JArray a -> {
                for (int i = 0; i < a.items().size(); i++) {
                    pointers(a.items().get(i), at + "/" + i, out);
                }
            }
            case JNode.JString s -> { }
            case JNode.JNumber num -> { }
            case JNode.JBool b -> { }
            case JNode.JNull nul -> { }
        }
    }

    @Test
    void aFileRewrittenAfterReadingPlacesValuesAtTheirStageAsRead() throws IOException, JsonFormatException {
        String text = programText(2);
        Path file = write("rewritten.json", text);
        ProgramFile pf = ProgramFile.read(file);
        SourcePosition stage1 = pf.locate("/stages/1");
        SourcePosition inside = pf.locate("/stages/1/kind/type");
        assertThat(inside.pos()).isNotEqualTo(stage1.pos());
        // the stages now lie elsewhere in the file: reading it again would place the value wrongly
        Files.writeString(file, "\n\n\n" + text.replace("\n", "\n  "));
        Files.setLastModifiedTime(file, FileTime.fromMillis(Files.getLastModifiedTime(file).toMillis() + 5_000));
        assertThat(pf.locate("/stages/1/kind/type")).isEqualTo(stage1);
        assertThat(pf.locate("/stages/1")).isEqualTo(stage1);
    }

    /** Stages in a long program: past the {@value StageStream#INLINE} decoded on the reading thread, several batches more. */
    private static final int LONG = 6000;

    /**
     * A program of {@value #LONG} stages (a generated one's stages over and over), stage {@code i}
     * with the id {@code long-%06d}, as canonical text.
     */
    private String longProgramText() {
        Program small = RandomPrograms.generate(11, GenOptions.small());
        List<Stage> stages = new ArrayList<>();
        for (int i = 0; i < LONG; i++) {
            Stage s = small.stages().get(i % small.stages().size());
            stages.add(new Stage(String.format("long-%06d", i), s.site(), s.ins(), s.outs(), s.kind()));
        }
        return codec.writeString(small.withStages(stages));
    }

    /** Where stage {@code i} of {@link #longProgramText} starts (its opening brace). */
    private static int stageStart(String text, int i) {
        int id = text.indexOf(String.format("\"id\": \"long-%06d\"", i));
        assertThat(id).as("stage %d", i).isPositive();
        return text.lastIndexOf('{', id);
    }

    /** Threads still decoding stages: none once a read has returned or thrown. */
    private static long decodingThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("stagecheck-decode-stages") && t.isAlive()).count();
    }

    @Test
    void aLongProgramIsTheProgramAndThePlacesTheWholeTreeGives() throws IOException, JsonFormatException {
        Path file = write("long.json", longProgramText());
        Program whole = new ProgramCodec().read(new JsonReader().read(file));
        ProgramFile streamed = ProgramFile.read(file);
        assertThat(decodingThreads()).isZero();
        assertThat(streamed.program().stages()).hasSize(LONG);
        assertThat(streamed.program()).isEqualTo(whole);
        assertThat(streamedOutcome(file)).isEqualTo("program " + whole);

        SourceMap wholeMap = new SourceMap(file.toString(), new JsonReader().read(file));
        List<String> pointers = new ArrayList<>();
        for (int i : new int[] {0, 1, 4094, 4095, 4096, 4097, 4351, 4352, 5000, LONG - 2, LONG - 1, LONG}) {
            for (String inside : List.of("", "/id", "/site", "/ins", "/ins/0", "/outs/0", "/kind", "/kind/type", "/kind/nothing")) {
                pointers.add("/stages/" + i + inside);
            }
        }
        for (String pointer : pointers) {
            assertThat(streamed.locate(pointer)).as(pointer).isEqualTo(wholeMap.locate(pointer));
        }
        // the places differ from stage to stage: a map that placed every stage alike would fail above
        assertThat(streamed.locate("/stages/5000/id")).isNotEqualTo(streamed.locate("/stages/4999/id"));
    }

    @Test
    void aBadStagePastTheInlineOnesIsTheErrorTheWholeTreeGives() throws IOException {
        String text = longProgramText();
        String bad5000 = text.replace("\"id\": \"long-005000\"", "\"id\": 7");
        Path file = write("bad5000.json", bad5000);
        assertThat(streamedOutcome(file)).contains("/stages/5000/id").isEqualTo(wholeTreeOutcome(file));

        // two bad stages past the inline ones, and one before them: the first is reported
        Path twoLate = write("bad4500.json", bad5000.replace("\"id\": \"long-004500\"", "\"id\": 8"));
        assertThat(streamedOutcome(twoLate)).contains("/stages/4500/id").isEqualTo(wholeTreeOutcome(twoLate));
        Path early = write("bad100.json", bad5000.replace("\"id\": \"long-000100\"", "\"id\": 9"));
        assertThat(streamedOutcome(early)).contains("/stages/100/id").isEqualTo(wholeTreeOutcome(early));
        assertThat(decodingThreads()).isZero();
    }

    @Test
    void aLongProgramCutAfterStage5000IsMalformedJsonAsInTheWholeTree() throws IOException {
        String text = longProgramText();
        Path cut = write("cut5000.json", text.substring(0, stageStart(text, 5001)));
        assertThat(streamedOutcome(cut)).contains("malformed JSON").isEqualTo(wholeTreeOutcome(cut));
        // cut inside stage 5000, after a bad stage the second thread decoded: the malformed JSON still wins
        String badThenCut = text.replace("\"id\": \"long-004800\"", "\"id\": 7");
        Path inside = write("cut-inside.json", badThenCut.substring(0, stageStart(badThenCut, 5000) + 20));
        assertThat(streamedOutcome(inside)).contains("malformed JSON").isEqualTo(wholeTreeOutcome(inside));
        // malformed JSON mid-array, past the inline stages, with the file going on after it
        Path broken = write("broken.json", text.substring(0, stageStart(text, 5500)) + "}," + text.substring(stageStart(text, 5500)));
        assertThat(streamedOutcome(broken)).contains("malformed JSON").isEqualTo(wholeTreeOutcome(broken));
        assertThat(decodingThreads()).isZero();
    }

    /**
     * A key repeated in a stage past the inline ones is the error even when malformed text follows
     * it, later in the file or in the same stage, as it comes first; the file is then read again,
     * token by token, for Jackson's own message.
     */
    @Test
    void aRepeatedKeyPastTheInlineStagesWinsOverMalformedTextAfterIt() throws IOException {
        String text = longProgramText();
        String repeated = text.replace("\"id\": \"long-005000\"", "\"id\": \"long-005000\", \"id\": \"again\"");
        Path later = write("dup-then-broken.json", repeated.substring(0, stageStart(repeated, 5900)) + "}," + repeated.substring(stageStart(repeated, 5900)));
        assertThat(streamedOutcome(later)).contains("Duplicate field 'id'").isEqualTo(wholeTreeOutcome(later));
        int inside = repeated.indexOf("\"again\"") + "\"again\"".length();
        Path same = write("dup-then-cut.json", repeated.substring(0, inside) + " ]" + repeated.substring(inside));
        assertThat(streamedOutcome(same)).contains("Duplicate field 'id'").isEqualTo(wholeTreeOutcome(same));
        Path alone = write("dup.json", repeated);
        assertThat(streamedOutcome(alone)).contains("Duplicate field 'id'").isEqualTo(wholeTreeOutcome(alone));
        assertThat(decodingThreads()).isZero();
    }

    @Test
    void aLongProgramDamagedPastItsInlineStagesGivesTheSameProgramOrTheSameError() throws IOException {
        String text = longProgramText();
        SplittableRandom rnd = new SplittableRandom(27);
        String[] inserts = {"{", "}", "[", "]", ",", ":", "\"", "0", "-1", "x", "\"a\": 1, ", "null", "1e99", "\"id\": \"q\", "};
        int from = stageStart(text, StageStream.INLINE);
        int errors = 0;
        for (int round = 0; round < 24; round++) {
            int at = from + rnd.nextInt(text.length() - from);
            String damaged = rnd.nextBoolean()
                    ? text.substring(0, at) + inserts[rnd.nextInt(inserts.length)] + text.substring(at)
                    : text.substring(0, at) + text.substring(Math.min(text.length(), at + 1 + rnd.nextInt(8)));
            Path file = write("long-damaged.json", damaged);
            String streamed = streamedOutcome(file);
            assertThat(streamed).as("round %d", round).isEqualTo(wholeTreeOutcome(file));
            errors += streamed.startsWith("error") ? 1 : 0;
        }
        assertThat(errors).isGreaterThan(12);
        assertThat(decodingThreads()).isZero();
    }

    /**
     * When the decoding thread cannot be started (the process is at its limit of threads:
     * {@link Thread#start} throws an {@link OutOfMemoryError}), the stages past the inline ones are
     * decoded on the reading thread: the same program, the same first error, no failed read.
     */
    @Test
    void stagesAreDecodedOnTheReadingThreadWhenNoThreadCanBeStarted() throws IOException, JsonFormatException {
        String text = longProgramText();
        Path file = write("no-thread.json", text);
        assertThat(readWithoutThreads(file)).isEqualTo("program " + new ProgramCodec().read(new JsonReader().read(file)));
        Path bad = write("no-thread-bad.json", text.replace("\"id\": \"long-005000\"", "\"id\": 7"));
        assertThat(readWithoutThreads(bad)).contains("/stages/5000/id").isEqualTo(wholeTreeOutcome(bad));
    }

    private static String readWithoutThreads(Path file) {
        ProgramDecoder decoder = new ProgramDecoder();
        try (StageStream stages = new StageStream(decoder, new ItemSpans(file, "stages"), 100, 2, r -> new Thread(r) {
            @Override
            public void start() {
                throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource limits reached");
            }
        })) {
            JNode tree = new JsonReader().read(file, stages);
            return "program " + decoder.program(tree, stages);
        } catch (JsonFormatException e) {
            return describe(e);
        }
    }
}
