package org.stagecheck.spec.cert;

import java.util.Objects;

/**
 * How the program's grouped-query attentions pair query heads with key/value heads (docs/format.md,
 * "Certificate"): with {@code queryHeads} H query heads and {@code kvHeads} G key/value heads, query
 * head h uses key/value head {@code floor(h / (H / G))} when the groups are {@link Order#CONTIGUOUS},
 * {@code h mod G} when they are {@link Order#INTERLEAVED}. A chip of a split by key/value head holds
 * query heads that need not be a contiguous window; the checker places each one by this layout.
 */
public record HeadLayout(Order order, int queryHeads, int kvHeads) {

    /** The two layouts inference engines use. */
    public enum Order {
        CONTIGUOUS("contiguous"),
        INTERLEAVED("interleaved");

        private final String jsonName;

        Order(String jsonName) {
            this.jsonName = jsonName;
        }

        public String jsonName() {
            return jsonName;
        }

        /** The order named {@code name} in a certificate, or null. */
        public static Order fromJsonName(String name) {
            for (Order o : values()) {
                if (o.jsonName.equals(name)) {
                    return o;
                }
            }
            return null;
        }
    }

    public HeadLayout {
        Objects.requireNonNull(order, "order");
        if (queryHeads < 1 || kvHeads < 1 || queryHeads % kvHeads != 0) {
            throw new IllegalArgumentException("a head layout needs at least one key/value head and a whole number of query heads per key/value head, not "
                    + queryHeads + " query heads over " + kvHeads);
        }
    }

    /** The key/value head query head {@code h} uses. */
    public int kvHeadOf(int h) {
        return switch (order) {
            case CONTIGUOUS -> h / (queryHeads / kvHeads);
            case INTERLEAVED -> h % kvHeads;
        };
    }
}
