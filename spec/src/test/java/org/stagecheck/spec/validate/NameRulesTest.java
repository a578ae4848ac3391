package org.stagecheck.spec.validate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.spec.ir.ProgramBuilder.block;
import static org.stagecheck.spec.ir.ProgramBuilder.load;
import static org.stagecheck.spec.ir.ProgramBuilder.program;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.TensorRole;

/** Tensor names and stage ids become file names: the ones no file system takes are findings. */
class NameRulesTest {
    @ParameterizedTest
    @ValueSource(strings = {"../../x", "/etc/passwd", "a/b", "a\\b", "C:\\x", "nul\0byte", "line\nbreak", "bell\u0007",
            "del\u007f", "c1\u0085", "..", ".", "...", "", "lone\ud800"})
    void aHostileTensorNameOrStageIdIsABadName(String name) {
        assertThat(NameRules.problem(name)).isNotNull();
        String out = validate(program()
                .tensor(name, DType.F32, TensorRole.INPUT, 4).buffer("a", DType.F32, 4)
                .stage(name, List.of(), List.of("a"), load(name, block(4)))
                .build());
        assertThat(out).contains("BAD_NAME at /tensors/0/name: tensor name " + NameRules.quote(name))
                .contains("BAD_NAME stage #0 ").contains("at /stages/0/id: stage id " + NameRules.quote(name));
        assertThat(NameRules.quote(name)).doesNotContain("\0").doesNotContain("\n").doesNotContain("\u0007");
    }

    @Test
    void theMessagesSayWhatIsWrong() {
        assertThat(NameRules.problem("../x")).isEqualTo("holds a path separator '/'; a name is data, never a path");
        assertThat(NameRules.problem("a\0")).isEqualTo("holds the control character U+0000 at position 1");
        assertThat(NameRules.problem("..")).isEqualTo("is only dots, which a file system reads as a directory");
        assertThat(NameRules.problem("x".repeat(201))).isEqualTo("is 201 characters long, more than the 200 a name may have");
        assertThat(NameRules.quote("a\0b")).isEqualTo("'a\\u0000b'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"x", "wq.l0", "tokens.c1", "a:b", "CON", ".x", "x.", "\u00e9t\u00e9", "\ud83d\ude00", "a b"})
    void namesSafeNamesCanEncodeAreAccepted(String name) {
        assertThat(NameRules.problem(name)).isNull();
        assertThat(validate(program().tensor(name, DType.F32, TensorRole.INPUT, 4).buffer("a", DType.F32, 4)
                .stage(name, List.of(), List.of("a"), load(name, block(4))).build())).isEmpty();
    }

    /** The validator's findings on the built program, rendered one per line. */
    private static String validate(org.stagecheck.spec.ir.Program p) {
        return new Validator().validate(p).stream().map(org.stagecheck.spec.diag.Diagnostic::render)
                .collect(java.util.stream.Collectors.joining("\n"));
    }
}
