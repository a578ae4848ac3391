package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link Cut#fromOptions}: every cut kind from its CLI options; wrong options are refusals. */
class CutTest {
    @Test
    void everyKindParsesWithExactlyItsOptions() {
        assertThat(ok("decode", 16, null, null)).isEqualTo(Cut.decode(16));
        assertThat(ok("prefill", 16, 4, null)).isEqualTo(Cut.prefill(4, 16));
        assertThat(ok("batch", 16, 4, null)).isEqualTo(Cut.batch(4, 16));
        assertThat(ok("forward", null, null, null)).isEqualTo(Cut.forward());
        assertThat(ok("forward-layer", null, null, 1)).isEqualTo(Cut.forwardLayer(1));
        assertThat(ok("forward-head", null, null, null)).isEqualTo(Cut.forwardHead());
        assertThat(ok("decode-embed", null, null, null)).isEqualTo(Cut.decodeEmbed());
        assertThat(ok("decode-layer", 8, null, 0)).isEqualTo(Cut.decodeLayer(0, 8));
        assertThat(ok("decode-head", null, null, null)).isEqualTo(Cut.decodeHead());
        assertThat(ok("batch-embed", null, 2, null)).isEqualTo(Cut.batchEmbed(2));
        assertThat(ok("batch-layer", 8, 2, 1)).isEqualTo(Cut.batchLayer(1, 2, 8));
        assertThat(ok("batch-head", null, 2, null)).isEqualTo(Cut.batchHead(2));
        assertThat(ok("prefill-layer", 8, 2, 1)).isEqualTo(Cut.prefillLayer(1, 2, 8));
        assertThat(ok("prefill-head", null, 2, null)).isEqualTo(Cut.prefillHead(2));
    }

    @Test
    void theCliNameRoundTrips() {
        for (Cut c : AuthorTest.everyCut()) {
            var o = c.options();
            Cut.CutOrRefusal back = Cut.fromOptions(c.cliName(), o.get("ctx"), o.get("rows"), o.get("layer"));
            assertThat(back).isEqualTo(new Cut.CutOrRefusal.Ok(c));
        }
    }

    @Test
    void everyCutIsAStepAndAPart() {
        assertThat(Cut.decode(16)).isEqualTo(new Cut(new Cut.Step.Decode(16), Cut.Part.WHOLE));
        assertThat(Cut.prefillLayer(1, 4, 16)).isEqualTo(new Cut(new Cut.Step.Prefill(4, 16), new Cut.Part.Layer(1)));
        assertThat(Cut.batchHead(3)).isEqualTo(new Cut(new Cut.Step.Batch(3, 0), Cut.Part.HEAD));
        assertThat(Cut.forwardLayer(0)).isEqualTo(new Cut(new Cut.Step.Forward(), new Cut.Part.Layer(0)));
        assertThat(AuthorTest.everyCut()).extracting(Cut::cliName).doesNotHaveDuplicates().hasSize(14);
    }

    @Test
    void aPartDropsWhatItDoesNotUseOfItsStep() {
        // the embedding and the head read no cache; the embedding is the same for every step of as many rows
        assertThat(Cut.decode(16).withPart(Cut.Part.EMBED)).isEqualTo(Cut.decodeEmbed());
        assertThat(Cut.forward().withPart(Cut.Part.EMBED)).isEqualTo(Cut.decodeEmbed());
        assertThat(Cut.prefill(4, 16).withPart(Cut.Part.EMBED)).isEqualTo(Cut.batchEmbed(4));
        assertThat(Cut.batch(2, 16).withPart(Cut.Part.EMBED)).isEqualTo(Cut.batchEmbed(2));
        assertThat(Cut.decode(16).withPart(Cut.Part.HEAD)).isEqualTo(Cut.decodeHead());
        assertThat(Cut.prefill(4, 16).withPart(Cut.Part.HEAD)).isEqualTo(Cut.prefillHead(4));
        assertThat(Cut.forward().withPart(Cut.Part.HEAD)).isEqualTo(Cut.forwardHead());
        assertThat(Cut.batch(2, 16).withPart(new Cut.Part.Layer(1))).isEqualTo(Cut.batchLayer(1, 2, 16));
        assertThat(Cut.prefillHead(4).ctx()).isZero();
        assertThat(Cut.decodeLayer(0, 16).withPart(Cut.Part.WHOLE)).isEqualTo(Cut.decode(16));
    }

    @Test
    void namesOptionsAndCacheUse() {
        assertThat(Cut.batchLayer(1, 2, 8)).hasToString("BatchLayer{layer=1, rows=2, ctx=8}");
        assertThat(Cut.decodeHead()).hasToString("DecodeHead");
        assertThat(Cut.prefillHead(3)).hasToString("PrefillHead{rows=3}");
        assertThat(Cut.forwardLayer(1)).hasToString("ForwardLayer{layer=1}");
        assertThat(Cut.decode(8).name()).isEqualTo("Decode");
        assertThat(Cut.decodeEmbed().cliName()).isEqualTo("decode-embed");
        assertThat(Cut.decodeLayer(0, 8).usesCache()).isTrue();
        assertThat(Cut.forwardLayer(0).usesCache()).isFalse();
        assertThat(Cut.forward().usesCache()).isFalse();
        assertThat(Cut.batchHead(2).usesCache()).isFalse();
        assertThat(Cut.batchEmbed(2).rows()).isEqualTo(2);
        assertThat(Cut.decode(8).rows()).isEqualTo(1);
    }

    @Test
    void missingExtraAndUnknownOptionsAreRefusals() {
        assertThat(Cut.fromOptions("decode", null, null, null))
                .isEqualTo(new Cut.CutOrRefusal.Refused(RefusalReason.BAD_OPTION, "cut decode needs --ctx"));
        assertThat(Cut.fromOptions("decode-head", 8, 2, null)).isEqualTo(new Cut.CutOrRefusal.Refused(
                RefusalReason.BAD_OPTION, "cut decode-head takes no --ctx; cut decode-head takes no --rows"));
        assertThat(Cut.fromOptions("batch", 0, 2, null))
                .isEqualTo(new Cut.CutOrRefusal.Refused(RefusalReason.BAD_OPTION, "--ctx must be at least 1, not 0"));
        assertThat(Cut.fromOptions("decoder", 8, null, null)).isInstanceOfSatisfying(Cut.CutOrRefusal.Refused.class,
                r -> assertThat(r.reason()).isEqualTo(RefusalReason.UNKNOWN_CUT));
        assertThat(Cut.fromOptions(null, 8, null, null)).isInstanceOf(Cut.CutOrRefusal.Refused.class);
        // a forward's and a prefill's embedding are decode-embed and batch-embed: no names of their own
        assertThat(Cut.fromOptions("prefill-embed", null, 2, null)).isEqualTo(new Cut.CutOrRefusal.Refused(
                RefusalReason.UNKNOWN_CUT, "unknown cut 'prefill-embed'; expected one of decode, prefill, batch, forward, "
                + "forward-layer, forward-head, decode-embed, decode-layer, decode-head, batch-embed, batch-layer, "
                + "batch-head, prefill-layer, prefill-head"));
        assertThat(Cut.fromOptions("forward-embed", null, null, null)).isInstanceOfSatisfying(
                Cut.CutOrRefusal.Refused.class, r -> assertThat(r.reason()).isEqualTo(RefusalReason.UNKNOWN_CUT));
    }

    private static Cut ok(String name, Integer ctx, Integer rows, Integer layer) {
        Cut.CutOrRefusal r = Cut.fromOptions(name, ctx, rows, layer);
        assertThat(r).isInstanceOf(Cut.CutOrRefusal.Ok.class);
        return ((Cut.CutOrRefusal.Ok) r).cut();
    }
}
