package org.stagecheck.spec.ir;

/** One core: chip index and its position on that chip's grid (brief, "The machine model"). */
public record Site(int chip, int x, int y) {
    public static Site of(int chip, int x, int y) {
        return new Site(chip, x, y);
    }

    @Override
    public String toString() {
        return "(" + chip + "," + x + "," + y + ")";
    }
}
