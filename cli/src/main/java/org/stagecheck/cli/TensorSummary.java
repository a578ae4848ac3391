package org.stagecheck.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import org.stagecheck.tensor.Tensor;

/** A one-line account of a tensor: type, checksum, range, and small integer values in full. */
record TensorSummary(String type, String checksum, double min, double max, long nonFinite, String values) {
    /** Integer tensors up to this many elements are printed in full (a next-token vector). */
    static final int SHOW_INTS = 16;

    static TensorSummary of(Tensor t) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        long nonFinite = 0;
        for (long i = 0; i < t.size(); i++) {
            double v = t.getDouble(i);
            if (!Double.isFinite(v)) {
                nonFinite++;
                continue;
            }
            min = Math.min(min, v);
            max = Math.max(max, v);
        }
        String values = null;
        if (t.dtype().isInteger() && t.size() <= SHOW_INTS) {
            values = java.util.Arrays.toString(t.toInts());
        }
        return new TensorSummary((t.isFloat64() ? "f64~" : "") + t.dtype() + t.shape(), t.checksum(), min, max, nonFinite, values);
    }

    String text() {
        String range = min > max ? "no finite values" : "min " + fmt(min) + " max " + fmt(max);
        return type + "  checksum " + checksum + "  " + range + (nonFinite > 0 ? "  non-finite " + nonFinite : "")
                + (values != null ? "  values " + values : "");
    }

    void json(JsonGenerator g) throws IOException {
        g.writeStringField("type", type);
        g.writeStringField("checksum", checksum);
        if (min <= max) {
            g.writeNumberField("min", min);
            g.writeNumberField("max", max);
        }
        g.writeNumberField("nonFinite", nonFinite);
        if (values != null) {
            g.writeStringField("values", values);
        }
    }

    private static String fmt(double v) {
        return String.format(java.util.Locale.ROOT, "%.6g", v);
    }
}
