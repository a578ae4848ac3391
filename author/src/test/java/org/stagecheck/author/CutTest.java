package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link Cut#fromOptions}: every cut kind from its CLI options; wrong options are refusals. */
class CutTest {
    @Test
    void everyKindParsesWithExactlyItsOptions() {
        assertThat(ok("decode", 16, null, null)).isEqualTo(new Cut.Decode(16));
        assertThat(ok("prefill", 16, 4, null)).isEqualTo(new Cut.Prefill(4, 16));
        assertThat(ok("batch", 16, 4, null)).isEqualTo(new Cut.Batch(4, 16));
        assertThat(ok("forward", null, null, null)).isEqualTo(new Cut.Forward());
        assertThat(ok("forward-layer", null, null, 1)).isEqualTo(new Cut.ForwardLayer(1));
        assertThat(ok("forward-head", null, null, null)).isEqualTo(new Cut.ForwardHead());
        assertThat(ok("decode-embed", null, null, null)).isEqualTo(new Cut.DecodeEmbed());
        assertThat(ok("decode-layer", 8, null, 0)).isEqualTo(new Cut.DecodeLayer(0, 8));
        assertThat(ok("decode-head", null, null, null)).isEqualTo(new Cut.DecodeHead());
        assertThat(ok("batch-embed", null, 2, null)).isEqualTo(new Cut.BatchEmbed(2));
        assertThat(ok("batch-layer", 8, 2, 1)).isEqualTo(new Cut.BatchLayer(1, 2, 8));
        assertThat(ok("batch-head", null, 2, null)).isEqualTo(new Cut.BatchHead(2));
        assertThat(ok("prefill-layer", 8, 2, 1)).isEqualTo(new Cut.PrefillLayer(1, 2, 8));
        assertThat(ok("prefill-head", null, 2, null)).isEqualTo(new Cut.PrefillHead(2));
    }

    @Test
    void theCliNameRoundTrips() {
        for (Cut c : AuthorTest.everyCut()) {
            Cut.CutOrRefusal back = Cut.fromOptions(c.cliName(), ctx(c), rows(c), layer(c));
            assertThat(back).isEqualTo(new Cut.CutOrRefusal.Ok(c));
        }
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
    }

    private static Cut ok(String name, Integer ctx, Integer rows, Integer layer) {
        Cut.CutOrRefusal r = Cut.fromOptions(name, ctx, rows, layer);
        assertThat(r).isInstanceOf(Cut.CutOrRefusal.Ok.class);
        return ((Cut.CutOrRefusal.Ok) r).cut();
    }

    private static Integer ctx(Cut c) {
        return switch (c) {
            case Cut.Decode d -> d.ctx();
            case Cut.Prefill p -> p.ctx();
            case Cut.Batch b -> b.ctx();
            case Cut.DecodeLayer d -> d.ctx();
            case Cut.BatchLayer b -> b.ctx();
            case Cut.PrefillLayer p -> p.ctx();
            case Cut.Forward f -> null;
            case Cut.ForwardLayer f -> null;
            case Cut.ForwardHead f -> null;
            case Cut.DecodeEmbed d -> null;
            case Cut.DecodeHead d -> null;
            case Cut.BatchEmbed b -> null;
            case Cut.BatchHead b -> null;
            case Cut.PrefillHead p -> null;
        };
    }

    private static Integer rows(Cut c) {
        return switch (c) {
            case Cut.Prefill p -> p.rows();
            case Cut.Batch b -> b.rows();
            case Cut.BatchEmbed b -> b.rows();
            case Cut.BatchLayer b -> b.rows();
            case Cut.BatchHead b -> b.rows();
            case Cut.PrefillLayer p -> p.rows();
            case Cut.PrefillHead p -> p.rows();
            case Cut.Decode d -> null;
            case Cut.DecodeLayer d -> null;
            case Cut.Forward f -> null;
            case Cut.ForwardLayer f -> null;
            case Cut.ForwardHead f -> null;
            case Cut.DecodeEmbed d -> null;
            case Cut.DecodeHead d -> null;
        };
    }

    private static Integer layer(Cut c) {
        return switch (c) {
            case Cut.ForwardLayer f -> f.layer();
            case Cut.DecodeLayer d -> d.layer();
            case Cut.BatchLayer b -> b.layer();
            case Cut.PrefillLayer p -> p.layer();
            case Cut.Decode d -> null;
            case Cut.Prefill p -> null;
            case Cut.Batch b -> null;
            case Cut.Forward f -> null;
            case Cut.ForwardHead f -> null;
            case Cut.DecodeEmbed d -> null;
            case Cut.DecodeHead d -> null;
            case Cut.BatchEmbed b -> null;
            case Cut.BatchHead b -> null;
            case Cut.PrefillHead p -> null;
        };
    }
}
