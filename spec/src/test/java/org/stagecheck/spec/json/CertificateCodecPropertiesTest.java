package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.stagecheck.spec.cert.BufferRemap;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.Obligation;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.gen.Generated;
import org.stagecheck.spec.gen.ProgramArbitraries;

/** CertificateCodec laws: write/read identity and canonical bytes, for random and generated certificates. */
class CertificateCodecPropertiesTest {
    private final CertificateCodec codec = new CertificateCodec();

    private static Arbitrary<String> names() {
        return Arbitraries.oneOf(
                Arbitraries.strings().alpha().numeric().withChars("_.").ofMinLength(1).ofMaxLength(12),
                Arbitraries.strings().withChars("\"\\\n\tπ/").ofMaxLength(6));
    }

    private static Arbitrary<ShardDecl> shards() {
        Arbitrary<Long> extents = Arbitraries.longs().between(1, Long.MAX_VALUE);
        return Combinators.combine(names(), names(), Arbitraries.integers().between(0, 7), extents, Arbitraries.longs(), Arbitraries.longs())
                .as((t, l, axis, extent, a, b) -> {
                    long start = Math.floorMod(a, extent);
                    long end = start + 1 + Math.floorMod(b, extent - start);
                    return new ShardDecl(t, l, axis, start, end, extent);
                });
    }

    private static Arbitrary<BufferRemap> remaps() {
        return Combinators.combine(
                Arbitraries.strings().withChars("sha256:0123456789abcdef").ofLength(20).injectNull(0.3),
                Arbitraries.maps(names(), names()).ofMaxSize(8)).as(BufferRemap::new);
    }

    @Provide
    Arbitrary<Certificate> certificates() {
        Arbitrary<Certificate> random = Combinators.combine(
                shards().list().ofMaxSize(6),
                remaps().injectNull(0.3),
                Arbitraries.of(Obligation.class).list().ofMaxSize(5)).as(Certificate::new);
        return Arbitraries.oneOf(random, ProgramArbitraries.generated().map(Generated::certificate));
    }

    @Property(tries = 200)
    void writeThenReadGivesAnEqualCertificate(@ForAll("certificates") Certificate c) throws JsonFormatException {
        assertThat(codec.read(new String(codec.write(c), StandardCharsets.UTF_8))).isEqualTo(c);
    }

    @Property(tries = 200)
    void canonicalBytesAreAFixedPoint(@ForAll("certificates") Certificate c) throws JsonFormatException {
        byte[] once = codec.write(c);
        byte[] twice = codec.write(codec.read(new String(once, StandardCharsets.UTF_8)));
        assertThat(twice).isEqualTo(once);
        assertThat(ProgramCodec.sha256(twice)).isEqualTo(ProgramCodec.sha256(once));
    }
}
