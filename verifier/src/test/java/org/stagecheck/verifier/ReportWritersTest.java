package org.stagecheck.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.stagecheck.verifier.corpus.Plant;
import org.stagecheck.verifier.corpus.TpCase;
import org.stagecheck.verifier.corpus.TpPrograms;
import org.stagecheck.verifier.corpus.TpSpec;
import org.stagecheck.verifier.report.ReportJson;
import org.stagecheck.verifier.report.ReportText;
import org.stagecheck.verifier.report.SarifWriter;

class ReportWritersTest {
    private static final TpSpec SPEC = new TpSpec(1, 4, 8, 2, TpSpec.Act.RELU, false, false, false);

    private static VerifyReport report(Plant plant) {
        TpCase c = TpPrograms.split(SPEC, plant);
        return new Verifier().verify(c.program(), c.certificate(), c.asParent());
    }

    @Test
    void json_report_carries_codes_locations_trails_and_obligations() throws Exception {
        JsonNode root = new ObjectMapper().readTree(new ReportJson().write(report(Plant.MATMUL_BIAS_BEFORE_REDUCE)));
        assertThat(root.get("holds").asBoolean()).isFalse();
        JsonNode d = root.get("diagnostics").get(0);
        assertThat(d.get("code").asText()).isEqualTo("PARTIAL_PLUS_FULL");
        assertThat(d.get("obligation").asText()).isEqualTo("unreduced-shard");
        assertThat(d.get("field").asText()).isEqualTo("/stages/14/ins/1");
        assertThat(d.get("buffer").asText()).isEqualTo("p.1");
        assertThat(d.get("trail").get(0).asText()).startsWith("#13 mm2.1: MatMul over w2 over [4,8)");
        assertThat(root.get("obligations").findValuesAsText("status"))
                .containsExactly("discharged", "violated", "discharged", "discharged");
    }

    @Test
    void a_clean_report_holds_in_every_format() throws Exception {
        VerifyReport r = report(Plant.NONE);
        assertThat(new ObjectMapper().readTree(new ReportJson().write(r)).get("holds").asBoolean()).isTrue();
        assertThat(new ReportText().render(r)).endsWith("verified: every checked obligation is discharged\n");
        JsonNode sarif = new ObjectMapper().readTree(new SarifWriter().write(r, "p.json"));
        assertThat(sarif.get("runs").get(0).get("results").size()).isZero();
    }

    @Test
    void sarif_has_a_rule_per_code_and_a_code_flow_along_the_trail() throws Exception {
        JsonNode sarif = new ObjectMapper().readTree(new SarifWriter().write(report(Plant.BIAS_BEFORE_REDUCE), "split.json"));
        assertThat(sarif.get("version").asText()).isEqualTo("2.1.0");
        JsonNode run = sarif.get("runs").get(0);
        assertThat(run.get("tool").get("driver").get("rules").size()).isEqualTo(Code.values().length);
        JsonNode result = run.get("results").get(0);
        assertThat(result.get("ruleId").asText()).isEqualTo("PARTIAL_PLUS_FULL");
        assertThat(run.get("tool").get("driver").get("rules").get(result.get("ruleIndex").asInt()).get("id").asText())
                .isEqualTo("PARTIAL_PLUS_FULL");
        assertThat(result.get("locations").get(0).get("physicalLocation").get("artifactLocation").get("uri").asText()).isEqualTo("split.json");
        JsonNode flow = result.get("codeFlows").get(0).get("threadFlows").get(0).get("locations");
        assertThat(flow.size()).isEqualTo(5);
        assertThat(flow.get(1).get("location").get("logicalLocations").get(0).get("fullyQualifiedName").asText()).isEqualTo("/stages/15");
    }
}
