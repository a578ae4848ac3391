package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.stagecheck.proptest.Draw;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.spec.cert.BufferRemap;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.Obligation;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.gen.SmallPrograms;
import org.junit.jupiter.api.Tag;

/** CertificateCodec laws: write/read identity and canonical bytes, for random and generated certificates. */
@Tag("slow")
class CertificateCodecPropertiesTest {
    private final CertificateCodec codec = new CertificateCodec();

    /** A name: half plain identifiers, half short strings of characters JSON must escape. */
    private static String name(SplittableRandom r) {
        return r.nextBoolean()
                ? Draw.string(r, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.", 1, 12)
                : Draw.string(r, "\"\\\n\tπ/", 0, 6);
    }

    private static ShardDecl shard(SplittableRandom r) {
        long extent = r.nextBoolean() ? Draw.between(r, 1L, 100L) : Draw.between(r, 1L, Long.MAX_VALUE);
        long start = Math.floorMod(Draw.anyLong(r), extent);
        long end = start + 1 + Math.floorMod(Draw.anyLong(r), extent - start);
        return new ShardDecl(name(r), name(r), r.nextInt(8), start, end, extent);
    }

    private static BufferRemap remap(SplittableRandom r) {
        String parentHash = Draw.chance(r, 0.3) ? null : Draw.string(r, "sha256:0123456789abcdef", 20, 20);
        Map<String, String> map = new LinkedHashMap<>();
        int n = r.nextInt(9);
        for (int i = 0; i < n; i++) {
            map.put(name(r), name(r));
        }
        return new BufferRemap(parentHash, map);
    }

    /** Half random certificates (any shard bounds, remap and claims), half those of generated programs. */
    static Certificate certificate(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        if (r.nextBoolean()) {
            return SmallPrograms.generated(r.nextLong()).certificate();
        }
        List<ShardDecl> shards = Draw.list(r, 0, 6, () -> shard(r));
        BufferRemap remap = Draw.chance(r, 0.3) ? null : remap(r);
        List<Obligation> claims = new ArrayList<>(Draw.list(r, 0, 5, () -> Draw.oneOf(r, Obligation.class)));
        String programHash = r.nextBoolean() ? null : "sha256:" + Draw.string(r, "0123456789abcdef", 64, 64);
        return new Certificate(shards, remap, claims, programHash);
    }

    @SeededProperty(tries = 200)
    void writeThenReadGivesAnEqualCertificate(long seed) throws JsonFormatException {
        Certificate c = certificate(seed);
        assertThat(codec.read(new String(codec.write(c), StandardCharsets.UTF_8))).isEqualTo(c);
    }

    @SeededProperty(tries = 200)
    void canonicalBytesAreAFixedPoint(long seed) throws JsonFormatException {
        Certificate c = certificate(seed);
        byte[] once = codec.write(c);
        byte[] twice = codec.write(codec.read(new String(once, StandardCharsets.UTF_8)));
        assertThat(twice).isEqualTo(once);
        assertThat(ProgramCodec.sha256(twice)).isEqualTo(ProgramCodec.sha256(once));
    }
}
