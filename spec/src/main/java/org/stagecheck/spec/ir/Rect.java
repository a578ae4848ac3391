package org.stagecheck.spec.ir;

import java.util.ArrayList;
import java.util.List;

/** A rectangle of cores on one chip: columns {@code [x, x+width)}, rows {@code [y, y+height)}. */
public record Rect(int x, int y, int width, int height) {
    public boolean contains(int cx, int cy) {
        return cx >= x && cx < x + width && cy >= y && cy < y + height;
    }

    /** The cores of the rectangle on {@code chip}, row by row. */
    public List<Site> sites(int chip) {
        List<Site> out = new ArrayList<>();
        for (int j = y; j < y + height; j++) {
            for (int i = x; i < x + width; i++) {
                out.add(new Site(chip, i, j));
            }
        }
        return out;
    }
}
