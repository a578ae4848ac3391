package org.stagecheck.spec.cert;

import java.util.Locale;

/** The obligations a certificate can claim discharged (brief, "Certificates"). */
public enum Obligation {
    WELL_FORMED, UNREDUCED_SHARD, BUFFER_REMAP, MULTICAST;

    /** {@code "unreduced-shard"}. */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static Obligation fromJsonName(String s) {
        for (Obligation o : values()) {
            if (o.jsonName().equals(s)) {
                return o;
            }
        }
        return null;
    }
}
