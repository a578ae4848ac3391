package org.stagecheck.golden.report;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

import javax.imageio.ImageIO;

import org.stagecheck.tensor.compare.ErrorMap;

/**
 * A PNG heat map of an {@link ErrorMap}, drawn with the JDK's own image classes (no dependency):
 * white where the values agree exactly, yellow to blue over six decades below the largest
 * error for elements within the policy, orange to dark red for elements that fail it, black for
 * a NaN/Inf disagreement. Cells are scaled up (nearest neighbour) so a small output is visible.
 */
public final class HeatMap {
    static final int MIN_SIDE = 256;
    static final int DECADES = 6;

    private HeatMap() {
    }

    public static byte[] png(ErrorMap m) {
        int scale = Math.max(1, MIN_SIDE / Math.max(m.rows(), m.cols()));
        BufferedImage img = new BufferedImage(m.cols() * scale, m.rows() * scale, BufferedImage.TYPE_INT_RGB);
        double max = 0;
        for (double e : m.error()) {
            if (Double.isFinite(e)) {
                max = Math.max(max, e);
            }
        }
        for (int r = 0; r < m.rows(); r++) {
            for (int c = 0; c < m.cols(); c++) {
                int k = r * m.cols() + c;
                int rgb = color(m.error()[k], m.mismatch()[k], max);
                for (int y = 0; y < scale; y++) {
                    for (int x = 0; x < scale; x++) {
                        img.setRGB(c * scale + x, r * scale + y, rgb);
                    }
                }
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            ImageIO.write(img, "png", out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The colour of one cell. */
    static int color(double err, boolean mismatch, double max) {
        if (Double.isInfinite(err) || Double.isNaN(err)) {
            return 0x000000;
        }
        if (err == 0 && !mismatch) {
            return 0xFFFFFF;
        }
        // t in [0, 1]: 0 at max * 10^-DECADES or below, 1 at the largest error
        double t = max <= 0 || err <= 0 ? 0 : Math.max(0, Math.min(1, 1 + Math.log10(err / max) / DECADES));
        if (mismatch) {
            return rgb(255 - 100 * t, 170 * (1 - t), 0);
        }
        return rgb(255 * (1 - t), 255 * (1 - 0.6 * t), 120 + 100 * t);
    }

    private static int rgb(double r, double g, double b) {
        return ((int) r << 16) | ((int) g << 8) | (int) b;
    }
}
