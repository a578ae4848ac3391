package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.HeadLayout;
import org.stagecheck.spec.cert.ShardDecl;

/** The certificate's optional {@code heads}: how query heads use key/value heads, read and written, checked in form. */
class CertificateHeadLayoutTest {
    private final CertificateCodec codec = new CertificateCodec();

    private static String withHeads(String heads) {
        return "{\"format\": \"stagecheck-certificate\", \"version\": 1, \"shards\": [],\n \"heads\": " + heads + "}";
    }

    @Test
    void aLayoutIsWrittenAndReadBack() throws JsonFormatException {
        Certificate c = new Certificate(List.of(new ShardDecl("w.0", "w", 0, 0, 2, 4)), null, List.of())
                .withHeads(new HeadLayout(HeadLayout.Order.INTERLEAVED, 8, 2));
        String json = new String(codec.write(c), StandardCharsets.UTF_8);
        assertThat(json).contains("\"heads\": {", "\"layout\": \"interleaved\"", "\"queryHeads\": 8", "\"kvHeads\": 2");
        assertThat(codec.read(json)).isEqualTo(c);
        assertThat(codec.read(json).withProgramHash("sha256:" + "0".repeat(64)).heads()).isEqualTo(c.heads());
    }

    @Test
    void aCertificateWithoutTheFieldDeclaresNoLayoutAndIsWrittenWithoutIt() throws JsonFormatException {
        Certificate c = codec.read("{\"format\": \"stagecheck-certificate\", \"version\": 1, \"shards\": []}");
        assertThat(c.heads()).isNull();
        assertThat(new String(codec.write(c), StandardCharsets.UTF_8)).doesNotContain("heads");
    }

    @Test
    void eachLayoutPairsQueryHeadsAsItsNameSays() {
        HeadLayout contiguous = new HeadLayout(HeadLayout.Order.CONTIGUOUS, 8, 2);
        HeadLayout interleaved = new HeadLayout(HeadLayout.Order.INTERLEAVED, 8, 2);
        assertThat(List.of(0, 1, 2, 3, 4, 5, 6, 7).stream().map(contiguous::kvHeadOf).toList()).containsExactly(0, 0, 0, 0, 1, 1, 1, 1);
        assertThat(List.of(0, 1, 2, 3, 4, 5, 6, 7).stream().map(interleaved::kvHeadOf).toList()).containsExactly(0, 1, 0, 1, 0, 1, 0, 1);
    }

    @Test
    void anUnknownLayoutOrCountsThatDoNotDivideAreRefusedWhereTheyLie() {
        assertThatThrownBy(() -> codec.read(withHeads("{\"layout\": \"striped\", \"queryHeads\": 8, \"kvHeads\": 2}")))
                .isInstanceOf(JsonFormatException.class).hasMessageContaining("/heads/layout").hasMessageContaining("striped")
                .hasMessageContaining("contiguous or interleaved");
        assertThatThrownBy(() -> codec.read(withHeads("{\"layout\": \"contiguous\", \"queryHeads\": 6, \"kvHeads\": 4}")))
                .isInstanceOf(JsonFormatException.class).hasMessageContaining("/heads").hasMessageContaining("6 query heads over 4");
        assertThatThrownBy(() -> codec.read(withHeads("{\"layout\": \"contiguous\", \"queryHeads\": 8}")))
                .isInstanceOf(JsonFormatException.class).hasMessageContaining("kvHeads");
    }
}
