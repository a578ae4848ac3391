package org.stagecheck.spec.ir;

import java.util.List;
import java.util.Objects;

/**
 * A multicast group: a rectangle of cores on one chip and the one core that sends to it (brief,
 * "The machine model"). The receivers are the rectangle's cores other than the sender; the sender
 * may lie inside or outside the rectangle but on the same chip.
 */
public record Group(String name, int chip, Rect rect, Site sender) {
    public Group {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(rect, "rect");
        Objects.requireNonNull(sender, "sender");
    }

    /** The receiving cores, row by row, without the sender. */
    public List<Site> receivers() {
        return rect.sites(chip).stream().filter(s -> !s.equals(sender)).toList();
    }
}
