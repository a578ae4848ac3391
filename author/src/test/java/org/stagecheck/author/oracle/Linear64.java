package org.stagecheck.author.oracle;

/** A torch {@code nn.Linear}: weight stored {@code [out, in]} row-major, {@code y = x W^T (+ b)}; bias may be null. */
record Linear64(double[] weight, double[] bias, int out, int in) {
    static Linear64 read(HfCheckpoint64 ckpt, String prefix, int out, int in, boolean withBias) {
        return new Linear64(ckpt.tensor(prefix + ".weight", out, in), withBias ? ckpt.tensor(prefix + ".bias", out) : null, out, in);
    }

    double[] apply(double[] x) {
        double[] y = new double[out];
        for (int o = 0; o < out; o++) {
            double sum = 0;
            int row = o * in;
            for (int i = 0; i < in; i++) {
                sum += weight[row + i] * x[i];
            }
            y[o] = bias == null ? sum : sum + bias[o];
        }
        return y;
    }
}
