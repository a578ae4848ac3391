package org.stagecheck.author.oracle;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The rotary keys of either config style: hub {@code rope_theta} plus {@code rope_scaling} (null or
 * a dict), or v5 {@code rope_parameters: {rope_theta, rope_type, ...}}. Theta defaults to 10000 (Mixtral: 1e6);
 * rope type {@code default} (or none) means no scaling, {@code llama3} is read, any other is refused.
 */
final class RopeKeys {
    private RopeKeys() {}

    /** The theta of either style; {@code absent} when neither key is given (the family's default: 10000, Mixtral's 1e6). */
    static double theta(ConfigKeys keys, double absent) {
        double top = keys.number("rope_theta", Double.NaN);
        JsonNode params = parameters(keys);
        double nested = params == null ? Double.NaN : ConfigKeys.number(params, "rope_theta", Double.NaN, keys.where() + ": rope_parameters");
        if (!Double.isNaN(top) && !Double.isNaN(nested) && top != nested) {
            throw new OracleInputException(keys.where() + ": rope_theta " + top + " and rope_parameters.rope_theta " + nested + " disagree");
        }
        double theta = !Double.isNaN(nested) ? nested : !Double.isNaN(top) ? top : absent;
        if (!(theta > 0)) {
            throw new OracleInputException(keys.where() + ": rope_theta " + theta + " is not positive");
        }
        return theta;
    }

    static HfConfig64.Llama3Scaling llama3(ConfigKeys keys) {
        JsonNode scaling = parameters(keys);
        String where = keys.where() + (keys.isNonNull("rope_parameters") ? ": rope_parameters" : ": rope_scaling");
        if (scaling == null) {
            return null;
        }
        JsonNode typeNode = scaling.has("rope_type") ? scaling.get("rope_type") : scaling.get("type");
        String type = typeNode == null || typeNode.isNull() ? "default" : typeNode.asText();
        return switch (type) {
            case "default" -> null;
            case "llama3" -> {
                double old = ConfigKeys.number(scaling, "original_max_position_embeddings", keys.number("max_position_embeddings", Double.NaN), where);
                double factor = ConfigKeys.number(scaling, "factor", Double.NaN, where);
                double low = ConfigKeys.number(scaling, "low_freq_factor", Double.NaN, where);
                double high = ConfigKeys.number(scaling, "high_freq_factor", Double.NaN, where);
                if (Double.isNaN(old) || Double.isNaN(factor) || Double.isNaN(low) || Double.isNaN(high) || !(factor > 0) || !(high > low)) {
                    throw new OracleInputException(where + ": llama3 needs factor > 0, low_freq_factor < high_freq_factor and original_max_position_embeddings (or max_position_embeddings)");
                }
                yield new HfConfig64.Llama3Scaling(factor, low, high, old);
            }
            default -> throw new OracleInputException(where + ": rope type " + type + " is refused (only default and llama3)");
        };
    }

    /** The scaling dict: v5 {@code rope_parameters} or hub {@code rope_scaling}; null when neither is given. */
    private static JsonNode parameters(ConfigKeys keys) {
        boolean v5 = keys.isNonNull("rope_parameters");
        if (v5 && keys.isNonNull("rope_scaling")) {
            throw new OracleInputException(keys.where() + ": both rope_parameters and rope_scaling are given");
        }
        JsonNode n = v5 ? keys.node("rope_parameters") : keys.isNonNull("rope_scaling") ? keys.node("rope_scaling") : null;
        if (n != null && !n.isObject()) {
            throw new OracleInputException(keys.where() + ": " + (v5 ? "rope_parameters" : "rope_scaling") + " is " + n + ", not an object");
        }
        return n;
    }
}
