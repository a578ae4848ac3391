package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.ShardDecl;

/** The certificate's optional {@code programHash}: written after the version when present, absent otherwise, checked in form. */
class CertificateProgramHashTest {
    private static final String HASH = "sha256:" + "0123456789abcdef".repeat(4);
    private final CertificateCodec codec = new CertificateCodec();

    @Test
    void aHashIsWrittenAfterTheVersionAndReadBack() throws JsonFormatException {
        Certificate c = new Certificate(List.of(new ShardDecl("w.0", "w", 0, 0, 2, 4)), null, List.of()).withProgramHash(HASH);
        String json = new String(codec.write(c), StandardCharsets.UTF_8);
        assertThat(json).contains("\"version\": 1,\n  \"programHash\": \"" + HASH + "\",\n  \"shards\"");
        assertThat(codec.read(json).programHash()).isEqualTo(HASH);
    }

    @Test
    void aCertificateWithoutTheFieldReadsAsNamingNoProgramAndIsWrittenWithoutIt() throws JsonFormatException {
        Certificate c = codec.read("{\"format\": \"stagecheck-certificate\", \"version\": 1, \"shards\": []}");
        assertThat(c.programHash()).isNull();
        assertThat(new String(codec.write(c), StandardCharsets.UTF_8)).doesNotContain("programHash");
    }

    @Test
    void aHashNotInTheProgramCodecsFormIsRefusedWhereItLies() {
        assertThatThrownBy(() -> codec.read("{\"format\": \"stagecheck-certificate\", \"version\": 1,\n \"programHash\": \"md5:abc\"}"))
                .isInstanceOf(JsonFormatException.class).hasMessageContaining("/programHash").hasMessageContaining("md5:abc");
    }
}
