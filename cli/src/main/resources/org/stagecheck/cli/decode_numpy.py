"""The decode step of an authored model in numpy, for `stagecheck bench decode`.

The same math as the authored Decode program (docs/author.md, "The model") on the same weights
(the .npy files in DIR), in float32, one token at a time with a KV cache: the baseline that
shows what the step costs without stages. Usage:

    python3 decode_numpy.py DIR CONFIG_JSON TOKENS_CSV WARMUP

CONFIG_JSON holds hidden, layers, heads, kvHeads, headDim, ffn, normEps, ctx. TOKENS_CSV are
the tokens fed at positions 0, 1, ... (the ones the stagecheck run fed). Prints one JSON line:
per-token wall and thread-CPU seconds after WARMUP tokens, the next token of every step, and a
1 x K x N f32 matvec timed on DIR/matvec_w.npy when it is there (best of 30 after 3 warm-up,
as the interpreter's is timed).
"""
import json
import sys
import time

import numpy as np


def main():
    d, cfg, toks, warm = sys.argv[1], json.loads(sys.argv[2]), [int(t) for t in sys.argv[3].split(",")], int(sys.argv[4])
    w = lambda n: np.load(f"{d}/{n}.npy")
    D, L, H, KH, Dh, eps, ctx = (cfg[k] for k in ("hidden", "layers", "heads", "kvHeads", "headDim", "normEps", "ctx"))
    f32 = np.float32
    embed, head, final_norm = w("embed"), w("head"), w("final_norm")
    layers = [{n: w(f"{n}.l{i}") for n in ("attn_norm", "wq", "wk", "wv", "wo", "mlp_norm", "w_gate", "w_up", "w_down")}
              for i in range(L)]
    cos, sin = w("rope_cos"), w("rope_sin")
    kc = [np.zeros((ctx, KH * Dh), f32) for _ in range(L)]
    vc = [np.zeros((ctx, KH * Dh), f32) for _ in range(L)]
    group, half, scale = H // KH, Dh // 2, f32(1.0 / np.sqrt(Dh))

    def rms(x, g):
        return x * (f32(1.0) / np.sqrt(np.sum(x * x, axis=-1, keepdims=True) / f32(D) + f32(eps))) * g

    def rope(x, heads, pos):
        x = x.reshape(heads, Dh)
        a, b = x[:, :half], x[:, half:]
        c, s = cos[pos], sin[pos]
        return np.concatenate([a * c - b * s, b * c + a * s], axis=1).reshape(heads * Dh)

    def step(token, pos):
        x = embed[token].astype(f32)
        for i, p in enumerate(layers):
            y = rms(x, p["attn_norm"][0])
            q, k, v = rope(y @ p["wq"], H, pos), rope(y @ p["wk"], KH, pos), y @ p["wv"]
            kc[i][pos], vc[i][pos] = k, v
            keys, vals = kc[i][: pos + 1].reshape(pos + 1, KH, Dh), vc[i][: pos + 1].reshape(pos + 1, KH, Dh)
            qh = q.reshape(KH, group, Dh)
            s = np.einsum("kgd,tkd->kgt", qh, keys) * scale
            e = np.exp(s - s.max(axis=-1, keepdims=True))
            pr = e / e.sum(axis=-1, keepdims=True)
            o = np.einsum("kgt,tkd->kgd", pr, vals).reshape(H * Dh)
            x = x + o @ p["wo"]
            y = rms(x, p["mlp_norm"][0])
            g, u = y @ p["w_gate"], y @ p["w_up"]
            x = x + (g / (f32(1.0) + np.exp(-g)) * u) @ p["w_down"]
        return int(np.argmax(rms(x, final_norm[0]) @ head))

    wall, cpu, nxt = [], [], []
    for pos, t in enumerate(toks):
        t0, c0 = time.perf_counter(), time.thread_time()
        nxt.append(step(t, pos))
        t1, c1 = time.perf_counter(), time.thread_time()
        if pos >= warm:
            wall.append(t1 - t0)
            cpu.append(c1 - c0)
    out = {"numpy": np.__version__, "wall": wall, "cpu": cpu, "next": nxt}
    try:
        mw = np.load(f"{d}/matvec_w.npy")
        mx = np.load(f"{d}/matvec_x.npy")
        times = []
        for _ in range(33):
            t0 = time.perf_counter()
            mx @ mw
            times.append(time.perf_counter() - t0)
        out["matvec"] = sorted(times[3:])
    except FileNotFoundError:
        pass
    print(json.dumps(out))


if __name__ == "__main__":
    main()
