package org.stagecheck.author.hf;

import java.util.List;
import org.stagecheck.author.ModelSpecException;
import org.stagecheck.author.RopeScaling;
import org.stagecheck.spec.json.JNode;

/**
 * The rotary base and rescaling of a config.json, in both spellings (docs/author.md,
 * "Checkpoints"): hub files (transformers 4) carry a top-level {@code rope_theta} and a
 * {@code rope_scaling} object or null; transformers 5 writes {@code rope_parameters:
 * {rope_theta, rope_type, factor, ...}}. With no theta anywhere the base is 10000, the
 * transformers default (Mixtral's class: 1e6). The type is {@code rope_type} (older files: {@code type}); {@code default}
 * or a null object is no rescaling, {@code llama3} is {@link RopeScaling.Llama3}, and every other
 * type (linear, dynamic, yarn, longrope, ...) is refused by name.
 *
 * @param theta   the rotary base
 * @param scaling the rescaling of the inverse frequencies
 */
record RopeConfig(double theta, RopeScaling scaling) {
    /** transformers' base when a config names none. */
    static final double DEFAULT_THETA = 10000.0;

    /** The rotary types transformers knows that stagecheck does not implement. */
    private static final List<String> REFUSED_TYPES = List.of("linear", "dynamic", "yarn", "longrope", "su", "mrope",
            "proportional");

    /** The keys of a llama3 rescaling beyond the type. */
    private static final List<String> LLAMA3_KEYS = List.of("factor", "low_freq_factor", "high_freq_factor",
            "original_max_position_embeddings");

    /** Mixtral's configuration class sets its own base when the config names none. */
    static final double MIXTRAL_DEFAULT_THETA = 1_000_000.0;

    static RopeConfig read(ConfigJson config, org.stagecheck.author.Family family) throws ModelSpecException {
        Double hubTheta = config.has("rope_theta") ? positiveTheta(config, "rope_theta") : null;
        ConfigJson parameters = config.absentOrNull("rope_parameters") ? null : config.nested("rope_parameters");
        Double v5Theta = parameters != null && parameters.has("rope_theta") ? positiveTheta(parameters, "rope_theta") : null;
        if (hubTheta != null && v5Theta != null && hubTheta.doubleValue() != v5Theta.doubleValue()) {
            throw parameters.at(parameters.get("rope_theta"), "\"rope_theta\" is " + hubTheta + " at the top level but "
                    + v5Theta + " in \"rope_parameters\"; which one the model was trained with is unknown");
        }
        double fallback = family == org.stagecheck.author.Family.MIXTRAL ? MIXTRAL_DEFAULT_THETA : DEFAULT_THETA;
        double theta = hubTheta != null ? hubTheta : v5Theta != null ? v5Theta : fallback;

        RopeScaling fromHub = config.absentOrNull("rope_scaling") ? null : scaling(config, config.nested("rope_scaling"), false);
        RopeScaling fromV5 = parameters == null ? null : scaling(config, parameters, true);
        if (fromHub != null && fromV5 != null && !fromHub.equals(fromV5)) {
            throw config.at(config.get("rope_scaling"), "\"rope_scaling\" and \"rope_parameters\" describe different"
                    + " rotary rescalings; which one the model was trained with is unknown");
        }
        RopeScaling scaling = fromHub != null ? fromHub : fromV5 != null ? fromV5 : RopeScaling.NONE;
        return new RopeConfig(theta, scaling);
    }

    private static double positiveTheta(ConfigJson o, String key) throws ModelSpecException {
        double theta = o.number(key);
        if (!(theta > 1.0)) {
            throw o.at(o.get(key), o.name(key) + " must be above 1, not " + ConfigKeys.shown(o.get(key)));
        }
        return theta;
    }

    /** The rescaling an object describes ({@code rope_scaling}, or {@code rope_parameters} when {@code v5}). */
    private static RopeScaling scaling(ConfigJson top, ConfigJson o, boolean v5) throws ModelSpecException {
        String type = type(o, v5);
        if (type.equals("default")) {
            onlyKeys(o, List.of(), v5);
            return RopeScaling.NONE;
        }
        if (type.equals("llama3")) {
            onlyKeys(o, LLAMA3_KEYS, v5);
            int original;
            if (o.has("original_max_position_embeddings")) {
                original = o.size("original_max_position_embeddings");
            } else if (top.has("max_position_embeddings")) {
                // transformers' fallback when the rescaling does not name the original length
                original = top.size("max_position_embeddings");
            } else {
                throw o.at(o.object(), "llama3 rotary rescaling needs \"original_max_position_embeddings\" (or a"
                        + " top-level \"max_position_embeddings\")");
            }
            try {
                return new RopeScaling.Llama3(o.number("factor"), o.number("low_freq_factor"), o.number("high_freq_factor"),
                        original);
            } catch (IllegalArgumentException e) {
                throw o.at(o.object(), e.getMessage());
            }
        }
        JNode at = o.has("rope_type") ? o.get("rope_type") : o.get("type");
        throw o.at(at, "rotary type \"" + type + "\" is not implemented by stagecheck"
                + (REFUSED_TYPES.contains(type) ? "" : " (nor known to it)") + "; it implements \"default\" and \"llama3\"");
    }

    /**
     * The type named by {@code rope_type} or the older {@code type} (both present: they must
     * agree). A {@code rope_parameters} object without one is the default rotary, as in
     * transformers; a {@code rope_scaling} object without one is refused.
     */
    private static String type(ConfigJson o, boolean v5) throws ModelSpecException {
        String ropeType = o.string("rope_type", null);
        String oldType = o.string("type", null);
        if (ropeType != null && oldType != null && !ropeType.equals(oldType)) {
            throw o.at(o.get("type"), "\"rope_type\" is \"" + ropeType + "\" but \"type\" is \"" + oldType + "\" in "
                    + o.where());
        }
        String type = ropeType != null ? ropeType : oldType;
        if (type == null) {
            if (v5) {
                return "default";
            }
            throw o.at(o.object(), o.where() + " names no \"rope_type\" (or \"type\"); null means no rescaling");
        }
        return type;
    }

    /** Refuses any key of {@code o} beyond the type keys, {@code allowed}, and {@code rope_theta} in rope_parameters. */
    private static void onlyKeys(ConfigJson o, List<String> allowed, boolean v5) throws ModelSpecException {
        for (var e : o.object().fields().entrySet()) {
            String k = e.getKey();
            boolean known = k.equals("rope_type") || k.equals("type") || allowed.contains(k) || v5 && k.equals("rope_theta");
            if (!known) {
                throw o.at(e.getValue(), "unknown key \"" + k + "\" in " + o.where() + ": stagecheck does not implement it"
                        + ", and refuses a rotary parameter it does not understand rather than ignore it");
            }
        }
    }
}
