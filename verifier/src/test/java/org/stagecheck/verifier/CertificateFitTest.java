package org.stagecheck.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * A certificate checked with another program than the one it was written for is said so in one
 * finding, whether it names its program's hash ({@code CERT_PROGRAM_DIFFERS}) or not (most of its
 * declarations name tensors the program does not have); a certificate of this program is used.
 */
class CertificateFitTest {
    private static final ModelSpec TINY = ModelSpec.tiny();
    private final Verifier verifier = new Verifier();

    private static AuthorOutcome.Authored authored(Cut cut, int tp) {
        return (AuthorOutcome.Authored) Author.author(TINY, cut, AuthorOptions.split(tp));
    }

    @Test
    void anAuthoredSplitsCertificateNamesItsProgramAndVerifiesWithIt() {
        var a = authored(Cut.decode(8), 2);
        assertThat(a.certificate().programHash()).isEqualTo(new ProgramCodec().hash(a.program()));
        assertThat(verifier.verify(a.program(), a.certificate(), Parent.none()).codes()).isEmpty();
    }

    @Test
    void aCertificateNamingAnotherProgramIsOneFindingAndNothingElse() {
        var decode = authored(Cut.decode(8), 2);
        var other = authored(Cut.decode(8), 4);
        VerifyReport r = verifier.verify(decode.program(), other.certificate(), Parent.none());
        assertThat(r.codes()).containsExactly("CERT_PROGRAM_DIFFERS");
        assertThat(r.diagnostics().getFirst().field()).isEqualTo("cert:/programHash");
        assertThat(r.diagnostics().getFirst().message()).contains(other.certificate().programHash())
                .contains(new ProgramCodec().hash(decode.program())).contains("another program");
        assertThat(r.obligations()).filteredOn(o -> o.obligation().jsonName().equals("unreduced-shard"))
                .singleElement().satisfies(o -> assertThat(o.note()).contains("another program"));
    }

    @Test
    void withTheUnsplitParentTooTheForeignCertificateIsStillOneFinding() {
        var decode = authored(Cut.decode(8), 2);
        var other = authored(Cut.batch(2, 8), 2);
        var unsplit = (AuthorOutcome.Authored) Author.author(TINY, Cut.decode(8), AuthorOptions.single());
        assertThat(verifier.verify(decode.program(), other.certificate(), Parent.unsplit(unsplit.program())).codes())
                .containsExactly("CERT_PROGRAM_DIFFERS");
    }

    @Test
    void withoutAHashACertificateMostlyOfUnknownTensorsIsSummarisedInOneFinding() {
        var decode = authored(Cut.decode(8), 2);
        Certificate own = decode.certificate();
        // another program's certificate: the same structure under other tensor names
        Certificate foreign = new Certificate(own.shards().stream().map(d -> new ShardDecl("other." + d.tensor(), d.logical(), d.axis(),
                d.start(), d.end(), d.extent())).toList(), null, own.claims());
        VerifyReport r = verifier.verify(decode.program(), foreign, Parent.none());
        assertThat(r.codes()).containsExactly("SHARD_DECL_UNKNOWN_TENSOR");
        assertThat(r.diagnostics().getFirst().field()).isEqualTo("cert:/shards");
        assertThat(r.diagnostics().getFirst().message())
                .contains("names " + own.shards().size() + " tensors this program does not have ('other.tokens', 'other.embed', 'other.rope_cos', ...)")
                .contains("probably written for another program");
    }

    @Test
    void withoutAHashAnotherSplitsCertificateIsSummarisedInOneFinding() {
        var decode = authored(Cut.decode(8), 2);
        Certificate tp4 = authored(Cut.decode(8), 4).certificate().withProgramHash(null);
        VerifyReport r = verifier.verify(decode.program(), tp4, Parent.none());
        assertThat(r.codes()).containsExactly("SHARD_DECL_UNKNOWN_TENSOR");
        assertThat(r.diagnostics().getFirst().message()).containsPattern("names \\d+ tensors this program does not have \\('[^']*c[23]'")
                .containsPattern("and gives \\d+ tensors another shape than this program's");
    }

    @Test
    void aFewUnknownTensorsAreStillReportedOneByOne() {
        var decode = authored(Cut.decode(8), 2);
        Certificate c = decode.certificate();
        var shards = new java.util.ArrayList<>(c.shards());
        shards.set(0, new ShardDecl("nope", shards.get(0).logical(), 0, 0, 1, 1));
        shards.set(1, new ShardDecl("nada", shards.get(1).logical(), 0, 0, 1, 1));
        VerifyReport r = verifier.verify(decode.program(), new Certificate(shards, null, c.claims()), Parent.none());
        assertThat(r.codes()).filteredOn("SHARD_DECL_UNKNOWN_TENSOR"::equals).hasSize(2);
        assertThat(r.diagnostics()).extracting(d -> d.field()).contains("cert:/shards/0/tensor", "cert:/shards/1/tensor");
    }
}
