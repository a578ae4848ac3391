package org.stagecheck.author.oracle;

/** {@code down(silu(gate(y)) * up(y))}: a dense MLP, one expert, or Qwen2-MoE's shared expert. */
record GatedMlp64(Linear64 gate, Linear64 up, Linear64 down) {
    static GatedMlp64 read(HfCheckpoint64 ckpt, String gate, String up, String down, int width, int hidden) {
        return new GatedMlp64(Linear64.read(ckpt, gate, width, hidden, false), Linear64.read(ckpt, up, width, hidden, false),
                Linear64.read(ckpt, down, hidden, width, false));
    }

    double[] apply(double[] y) {
        return Ops64.gatedMlp(gate, up, down, y);
    }
}
