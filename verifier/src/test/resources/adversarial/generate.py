"""Writes the verifier's adversarial corpus (docs/verifier.md, "Adversarial corpus").

Each case is a directory right/NAME, wrong/NAME or limit/NAME beside this script holding
program.json (the split), certificate.json and parent.json (the unsplit program it claims to
compute). Most cases are edits of a 2-chip (or 4-chip) tensor-parallel split of
y = tanh(x W1) W2 + b2 (W1 column-, W2 row-parallel, one sum all-reduce); a few use other shapes
(data-parallel rows, column-parallel outputs, a KV-cache row at a parameter). The expected
verdicts and codes live in AdversarialCorpusTest, not here.

Usage (from this directory): python3 generate.py [OUT_DIR]   (default: this directory)
"""
import json, os, sys
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
R, D, F = 2, 8, 8   # rows, model, hidden
def blk(o, b): return {"type": "block", "origin": o, "block": b}
def load(i, site, out, t, o, b, **kw):
    k = {"type": "Load", "tensor": t, "pattern": blk(o, b), "numBlocks": 1}; k.update(kw)
    return {"id": i, "site": site, "ins": [], "outs": [out], "kind": k}
def store(i, site, inp, t, o, b):
    return {"id": i, "site": site, "ins": [inp], "outs": [], "kind": {"type": "Store", "tensor": t, "pattern": blk(o, b), "subBlocks": b}}
def gen(i, site, ins, out, e):
    return {"id": i, "site": site, "ins": ins, "outs": [out], "kind": {"type": "Compute", "op": {"type": "generic", "expr": e}}}
def mm(i, site, ins, out, **kw):
    op = {"type": "matmul", "transposeA": False, "transposeB": False}; op.update(kw)
    return {"id": i, "site": site, "ins": ins, "outs": [out], "kind": {"type": "Compute", "op": op}}
def allred(i, site, ins, outs, tensor, combine, pool="sum"):
    return {"id": i, "site": site, "ins": ins, "outs": outs, "kind": {"type": "AllReduce", "pool": pool, "tensor": tensor, "combine": combine}}
def T(n, shape, chip, role, dt="f32"): return {"name": n, "dtype": dt, "shape": shape, "chip": chip, "role": role}
def B(n, shape, site, dt="f32"): return {"name": n, "dtype": dt, "shape": shape, "site": site}
def prog(name, chips, tensors, buffers, stages, params=None, groups=None, w=1, h=1):
    return {"format": "stagecheck-program", "version": 1, "name": name, "machine": {"chips": chips, "width": w, "height": h},
            "params": params or [], "tensors": tensors, "buffers": buffers, "groups": groups or [], "stages": stages}
def sd(t, l, axis, s, e, ext): return {"tensor": t, "logical": l, "axis": axis, "start": s, "end": e, "extent": ext}
def cert(shards): return {"format": "stagecheck-certificate", "version": 1, "shards": shards, "claims": ["well-formed", "unreduced-shard", "multicast"]}

def unsplit(act="tanh", bdt="f32"):
    s = [0, 0, 0]
    t = [T("x", [R, D], 0, "input"), T("w1", [D, F], 0, "weight"), T("w2", [F, D], 0, "weight"), T("b2", [1, D], 0, "weight"), T("y", [R, D], 0, "output")]
    b = [B("x", [R, D], s), B("w1", [D, F], s), B("h", [R, F], s), B("a", [R, F], s), B("w2", [F, D], s), B("p", [R, D], s), B("b", [1, D], s), B("y", [R, D], s)]
    st = [load("lx", s, "x", "x", [0, 0], [R, D]), load("lw1", s, "w1", "w1", [0, 0], [D, F]), mm("mm1", s, ["x", "w1"], "h"),
          gen("act", s, ["h"], "a", act + "(in0)"), load("lw2", s, "w2", "w2", [0, 0], [F, D]), mm("mm2", s, ["a", "w2"], "p"),
          load("lb", s, "b", "b2", [0, 0], [1, D]), gen("addb", s, ["p", "b"], "y", "add(in0, in1)"), store("sy", s, "y", "y", [0, 0], [R, D])]
    return prog("mlp-unsplit", 1, t, b, st)

def split(tp=2, pdt="f32"):
    f = F // tp
    t, b, st, sh = [], [], [], []
    per = []
    for c in range(tp):
        s = [c, 0, 0]
        t += [T(f"x.{c}", [R, D], c, "input"), T(f"w1.{c}", [D, f], c, "weight"), T(f"w2.{c}", [f, D], c, "weight"),
              T(f"b2.{c}", [1, D], c, "weight"), T(f"y.{c}", [R, D], c, "output")]
        sh += [sd(f"x.{c}", "x", 0, 0, R, R), sd(f"w1.{c}", "w1", 1, c * f, (c + 1) * f, F), sd(f"w2.{c}", "w2", 0, c * f, (c + 1) * f, F),
               sd(f"b2.{c}", "b2", 0, 0, 1, 1), sd(f"y.{c}", "y", 0, 0, R, R)]
        b += [B(f"x.{c}", [R, D], s), B(f"w1.{c}", [D, f], s), B(f"h.{c}", [R, f], s), B(f"a.{c}", [R, f], s), B(f"w2.{c}", [f, D], s),
              B(f"p.{c}", [R, D], s, pdt), B(f"r.{c}", [R, D], s, pdt), B(f"b.{c}", [1, D], s), B(f"y.{c}", [R, D], s)]
        st += [load(f"lx.{c}", s, f"x.{c}", f"x.{c}", [0, 0], [R, D]), load(f"lw1.{c}", s, f"w1.{c}", f"w1.{c}", [0, 0], [D, f]),
               mm(f"mm1.{c}", s, [f"x.{c}", f"w1.{c}"], f"h.{c}"), gen(f"act.{c}", s, [f"h.{c}"], f"a.{c}", "tanh(in0)"),
               load(f"lw2.{c}", s, f"w2.{c}", f"w2.{c}", [0, 0], [f, D]), mm(f"mm2.{c}", s, [f"a.{c}", f"w2.{c}"], f"p.{c}")]
    comb = "in0"
    for k in range(1, tp): comb = f"add({comb}, in{k})"
    st.append(allred("ar", [0, 0, 0], [f"p.{c}" for c in range(tp)], [f"r.{c}" for c in range(tp)], "w2", comb))
    for c in range(tp):
        s = [c, 0, 0]
        st += [load(f"lb.{c}", s, f"b.{c}", f"b2.{c}", [0, 0], [1, D]), gen(f"addb.{c}", s, [f"r.{c}", f"b.{c}"], f"y.{c}", "add(in0, in1)"),
               store(f"sy.{c}", s, f"y.{c}", f"y.{c}", [0, 0], [R, D])]
    return prog("mlp-split", tp, t, b, st), cert(sh)

cases = {}
def case(name, expect, program, certificate, parent=True, par=None, note=""):
    cases[name] = (expect, program, certificate, (par if par is not None else unsplit()) if parent else None, note)

def st_by_id(p, i):
    return next(s for s in p["stages"] if s["id"] == i)

p, c = split(); case("right/base", "holds", p, c)
p, c = split(4); case("right/base-tp4", "holds", p, c)
# ---- certificate lies
p, c = split(); c["shards"][7]["start"], c["shards"][7]["end"] = 0, 4; case("wrong/cert-w2-duplicate-slice", "reject", p, c)
p, c = split(); del c["shards"][7]; case("wrong/cert-w2-shard-missing", "reject", p, c)
p, c = split(); c["shards"][7]["tensor"] = "w2.0"; case("wrong/cert-w2-declared-twice-on-one-tensor", "reject", p, c)
p, c = split(); c["shards"][2]["extent"] = c["shards"][7]["extent"] = 12; case("wrong/cert-w2-extent-too-big", "reject", p, c)
p, c = split(); c["shards"][7]["logical"] = "w2x"; case("wrong/cert-w2-other-logical", "reject", p, c)
p, c = split(); c["shards"][6]["start"], c["shards"][6]["end"] = 0, 4; case("wrong/cert-w1-columns-swapped", "reject", p, c)
p, c = split(); c["shards"][1]["start"], c["shards"][1]["end"] = 4, 8; c["shards"][6]["start"], c["shards"][6]["end"] = 0, 4; case("wrong/cert-w1-both-columns-swapped", "reject", p, c)
p, c = split(); c["shards"][1]["axis"] = 0; c["shards"][1]["start"], c["shards"][1]["end"], c["shards"][1]["extent"] = 0, 8, 8; case("wrong/cert-w1-wrong-axis", "reject", p, c)
p, c = split(); c["shards"][2]["axis"], c["shards"][7]["axis"] = 1, 1; case("wrong/cert-w2-wrong-axis", "reject", p, c)
p, c = split(); c["shards"] = [dict(s, tensor=s["tensor"].replace(".", "_")) for s in c["shards"]]; case("wrong/cert-for-another-program", "reject", p, c)
p, c = split(); c["shards"][4]["logical"] = "z"; case("wrong/cert-output-declared-other-logical", "reject", p, c)
p, c = split(); c["shards"][9]["start"], c["shards"][9]["end"], c["shards"][9]["extent"] = 0, 2, 4; c["shards"][4]["extent"] = 4; case("wrong/cert-output-window-misplaced", "reject", p, c)
p, c = split(); c["shards"][0] = sd("x.0", "x", 0, 0, 2, 4); c["shards"][5] = sd("x.1", "x", 0, 2, 4, 4); case("wrong/cert-x-rows-as-shards", "reject", p, c)
# ---- program wrong
p, c = split(); st_by_id(p, "ar")["kind"]["combine"] = "max(in0, in1)"; case("wrong/allreduce-combine-max", "reject", p, c)
p, c = split(); st_by_id(p, "ar")["kind"]["pool"] = "max"; st_by_id(p, "ar")["kind"]["combine"] = "max(in0, in1)"; case("wrong/allreduce-pool-max", "reject", p, c)
p, c = split(); st_by_id(p, "ar")["kind"]["combine"] = "add(in0, in0)"; case("wrong/allreduce-partial-added-to-itself", "reject", p, c)
p, c = split(); st_by_id(p, "ar")["kind"]["combine"] = "add(in1, in1)"; case("wrong/allreduce-other-partial-doubled", "reject", p, c)
p, c = split(); st_by_id(p, "ar")["kind"]["tensor"] = "w1"; case("limit/allreduce-names-another-tensor", "holds", p, c)
p, c = split(); st_by_id(p, "lw2.1")["kind"]["tensor"] = "w2.0"; p["stages"].remove(st_by_id(p, "lw2.1")); p["stages"].insert(0, dict(load("lw2.1", [1,0,0], "w2.1", "w2.0", [0,0],[4,8]))); case("wrong/chip1-loads-chip0-weights", "reject", p, c)
p, c = split(); st_by_id(p, "lx.1")["kind"]["pattern"]["origin"] = [1, 0]; st_by_id(p, "lx.1")["kind"]["pattern"]["block"] = [1, 8]; case("wrong/x-row-offset", "reject", p, c)
p, c = split(); st_by_id(p, "act.1")["kind"]["op"]["expr"] = "sigmoid(in0)"; case("wrong/chip1-other-activation", "reject", p, c)
p, c = split(); [st_by_id(p, f"act.{k}")["kind"]["op"].update(expr="sigmoid(in0)") for k in (0, 1)]; case("wrong/both-chips-other-activation", "reject", p, c)
p, c = split(); st_by_id(p, "mm2.1")["kind"]["op"]["transposeB"] = False; st_by_id(p, "mm2.1")["ins"] = ["a.1", "w2.1"]; st_by_id(p, "mm2.1")["ins"] = ["a.0", "w2.1"] if False else ["a.1", "w2.1"]; 
for k in (0, 1): st_by_id(p, f"addb.{k}")["kind"]["op"]["expr"] = "sub(in0, in1)"
case("wrong/bias-subtracted-everywhere", "reject", p, c)
p, c = split(); st_by_id(p, "addb.1")["ins"] = ["r.1", "r.1"]; st_by_id(p, "addb.1")["kind"]["op"]["expr"] = "add(in0, in1)"; case("wrong/chip1-sum-doubled-no-bias", "reject", p, c)
p, c = split(); [st_by_id(p, f"addb.{k}")["kind"]["op"].update(expr="add(in0, mul(in1, 2.0))") for k in (0, 1)]; case("wrong/bias-scaled-everywhere", "reject", p, c)
p, c = split(); [st_by_id(p, f"addb.{k}")["kind"]["op"].update(expr="in0") for k in (0, 1)]; case("wrong/bias-dropped-everywhere", "reject", p, c)
# narrowing
p, c = split(pdt="bf16"); [st_by_id(p, f"mm2.{k}") for k in (0,1)]; case("wrong/partials-summed-in-bf16", "reject", p, c)
# store: both chips store y correct but chip 1 stores to wrong rows of its own y (block offset) - y shape R x D; store half
p, c = split(); 
for k in (0, 1):
    st_by_id(p, f"sy.{k}")["kind"]["pattern"] = blk([0, 0], [R, D])
st_by_id(p, "sy.1")["kind"]["pattern"] = blk([0, 0], [1, D]); st_by_id(p, "sy.1")["kind"]["subBlocks"] = [1, D]
b = next(x for x in p["buffers"] if x["name"] == "y.1")
case("wrong/chip1-stores-half-output-invalid", "reject", p, c)
# ---- right rewrites
p, c = split(); st_by_id(p, "ar")["kind"]["combine"] = "add(in1, in0)"; case("right/commuted-combine", "holds", p, c)
p, c = split(4); st_by_id(p, "ar")["kind"]["combine"] = "add(add(in3, in1), add(in2, in0))"; case("right/reassociated-combine-tp4", "holds", p, c)
p, c = split(); [st_by_id(p, f"addb.{k}")["kind"]["op"].update(expr="add(in1, in0)") for k in (0, 1)]; case("right/bias-commuted", "holds", p, c)
p, c = split()
ren = {f"h.{k}": f"hidden_chip{k}" for k in (0, 1)}
for bb in p["buffers"]: bb["name"] = ren.get(bb["name"], bb["name"])
for s in p["stages"]: s["ins"] = [ren.get(x, x) for x in s["ins"]]; s["outs"] = [ren.get(x, x) for x in s["outs"]]
case("right/renamed-buffers", "holds", p, c)
p, c = split()
# extra dead stage on chip 0: compute exp of x into a dead buffer
p["buffers"].append(B("dead.0", [R, D], [0, 0, 0])); p["stages"].insert(3, gen("dead.0", [0, 0, 0], ["x.0"], "dead.0", "exp(in0)"))
case("right/extra-dead-stage", "holds", p, c)
p, c = split()
# redundant recomputation: chip 1 computes tanh twice, uses second
p["buffers"].append(B("a2.1", [R, F // 2], [1, 0, 0])); i = p["stages"].index(st_by_id(p, "act.1")); p["stages"].insert(i + 1, gen("act2.1", [1, 0, 0], ["h.1"], "a2.1", "tanh(in0)"))
st_by_id(p, "mm2.1")["ins"] = ["a2.1", "w2.1"]; case("right/redundant-recompute", "holds", p, c)
p, c = split()
# different tiling: chip 1 stores y in two row blocks
s1 = st_by_id(p, "sy.1"); i = p["stages"].index(s1)
p["buffers"] += [B("ytop.1", [1, D], [1, 0, 0]), B("ybot.1", [1, D], [1, 0, 0])]
p["stages"][i:i + 1] = [{"id": "sl0.1", "site": [1, 0, 0], "ins": ["y.1"], "outs": ["ytop.1"], "kind": {"type": "Compute", "op": {"type": "slice", "starts": [0, 0]}}},
                        {"id": "sl1.1", "site": [1, 0, 0], "ins": ["y.1"], "outs": ["ybot.1"], "kind": {"type": "Compute", "op": {"type": "slice", "starts": [1, 0]}}},
                        store("sy0.1", [1, 0, 0], "ytop.1", "y.1", [0, 0], [1, D]), store("sy1.1", [1, 0, 0], "ybot.1", "y.1", [1, 0], [1, D])]
case("right/store-tiled-by-rows", "holds", p, c)
p, c = split()
# swapped stores of the row tiles: wrong
s1 = st_by_id(p, "sy.1"); i = p["stages"].index(s1)
p["buffers"] += [B("ytop.1", [1, D], [1, 0, 0]), B("ybot.1", [1, D], [1, 0, 0])]
p["stages"][i:i + 1] = [{"id": "sl0.1", "site": [1, 0, 0], "ins": ["y.1"], "outs": ["ytop.1"], "kind": {"type": "Compute", "op": {"type": "slice", "starts": [0, 0]}}},
                        {"id": "sl1.1", "site": [1, 0, 0], "ins": ["y.1"], "outs": ["ybot.1"], "kind": {"type": "Compute", "op": {"type": "slice", "starts": [1, 0]}}},
                        store("sy0.1", [1, 0, 0], "ytop.1", "y.1", [1, 0], [1, D]), store("sy1.1", [1, 0, 0], "ybot.1", "y.1", [0, 0], [1, D])]
case("wrong/store-row-tiles-swapped", "reject", p, c)

# ---- hierarchical all-reduce over tp4
def hier(groups1, groups2):
    p, c = split(4)
    ar = st_by_id(p, "ar"); i = p["stages"].index(ar)
    for k in range(4): p["buffers"].append(B(f"q.{k}", [R, D], [k, 0, 0]))
    new = []
    for n, (u, v) in enumerate(groups1):
        new.append(allred(f"ar1.{n}", [u, 0, 0], [f"p.{u}", f"p.{v}"], [f"q.{u}", f"q.{v}"], "w2", "add(in0, in1)"))
    for n, (u, v) in enumerate(groups2):
        new.append(allred(f"ar2.{n}", [u, 0, 0], [f"q.{u}", f"q.{v}"], [f"r.{u}", f"r.{v}"], "w2", "add(in0, in1)"))
    p["stages"][i:i + 1] = new
    return p, c
p, c = hier([(0, 1), (2, 3)], [(0, 2), (1, 3)]); case("right/hierarchical-allreduce-tp4", "holds", p, c)
p, c = hier([(0, 1), (2, 3)], [(0, 1), (2, 3)]); case("wrong/hierarchical-allreduce-same-groups-twice", "reject", p, c)
p, c = hier([(0, 1), (2, 3)], [(0, 3), (1, 2)]); case("right/hierarchical-allreduce-crossed-groups", "holds", p, c)
p, c = split(4); ar = st_by_id(p, "ar"); ar["ins"] = ["p.0", "p.1", "p.2"]; ar["outs"] = ["r.0", "r.1", "r.2"]; ar["kind"]["combine"] = "add(add(in0, in1), in2)"
p["stages"].insert(p["stages"].index(ar) + 1, allred("ar3", [3, 0, 0], ["p.3", "p.0"], ["r.3", "dummy.0"], "w2", "add(in0, in1)")); p["buffers"].append(B("dummy.0", [R, D], [0, 0, 0]))
case("wrong/allreduce-group-missing-chip3", "reject", p, c)
# ---- tile read at the wrong offset by one tile (chip 1 computes its partial in two k-tiles)
def ktiles(second_origin):
    p, c = split()
    m = st_by_id(p, "mm2.1"); i = p["stages"].index(m)
    s = [1, 0, 0]
    p["buffers"] += [B("a0.1", [R, 2], s), B("a1.1", [R, 2], s), B("wt0.1", [2, D], s), B("wt1.1", [2, D], s), B("pp0.1", [R, D], s), B("pp1.1", [R, D], s)]
    p["stages"][i:i + 1] = [
        {"id": "sa0.1", "site": s, "ins": ["a.1"], "outs": ["a0.1"], "kind": {"type": "Compute", "op": {"type": "slice", "starts": [0, 0]}}},
        {"id": "sa1.1", "site": s, "ins": ["a.1"], "outs": ["a1.1"], "kind": {"type": "Compute", "op": {"type": "slice", "starts": [0, 2]}}},
        load("lwt0.1", s, "wt0.1", "w2.1", [0, 0], [2, D]), load("lwt1.1", s, "wt1.1", "w2.1", second_origin, [2, D]),
        mm("mmt0.1", s, ["a0.1", "wt0.1"], "pp0.1"), mm("mmt1.1", s, ["a1.1", "wt1.1"], "pp1.1"),
        gen("acc.1", s, ["pp0.1", "pp1.1"], "p.1", "add(in0, in1)")]
    p["stages"].remove(st_by_id(p, "lw2.1")); p["buffers"] = [b for b in p["buffers"] if b["name"] != "w2.1"]
    return p, c
p, c = ktiles([2, 0]); case("right/k-tiled-partial-on-one-chip", "holds", p, c)
p, c = ktiles([0, 0]); case("wrong/k-tile-read-one-tile-early", "reject", p, c)
p, c = ktiles([1, 0]); case("wrong/k-tile-read-one-row-early", "reject", p, c)
# ---- multicast on a 2x1 chip: sender loads x and multicasts, receiver core computes a copy
def mcast(variant):
    p, c = split()
    p["machine"]["width"] = 2
    p["groups"] = [{"name": f"g{k}", "chip": k, "rect": {"x": 0, "y": 0, "width": 2, "height": 1}, "sender": [k, 0, 0]} for k in (0, 1)]
    for k in (0, 1):
        st_by_id(p, f"lx.{k}")["kind"]["multicast"] = f"g{k}"
        p["buffers"] += [B(f"xr.{k}", [R, D], [k, 1, 0]), B(f"e.{k}", [R, D], [k, 1, 0])]
    for k in (0, 1):
        i = p["stages"].index(st_by_id(p, f"lx.{k}"))
        recv = {"id": f"rx.{k}", "site": [k, 1, 0], "ins": [], "outs": [f"xr.{k}"], "kind": {"type": "Recv", "group": f"g{k}"}}
        if variant == "ok" or (variant != "recv-missing" or k == 0):
            if variant == "recv-before-load" and k == 1:
                p["stages"].insert(i, recv)
            elif variant == "recv-wrong-group" and k == 1:
                recv["kind"]["group"] = "g0"; recv["site"] = [1, 1, 0]; p["stages"].insert(i + 1, recv)
            else:
                p["stages"].insert(i + 1, recv)
        p["stages"].append(gen(f"use.{k}", [k, 1, 0], [f"xr.{k}"], f"e.{k}", "exp(in0)"))
    if variant == "recv-twice":
        i = p["stages"].index(st_by_id(p, "rx.1"))
        p["stages"].insert(i + 1, {"id": "rx2.1", "site": [1, 1, 0], "ins": [], "outs": ["xr.1"], "kind": {"type": "Recv", "group": "g1"}})
    return p, c
p, c = mcast("ok"); case("right/multicast", "holds", p, c)
p, c = mcast("recv-missing"); case("wrong/multicast-recv-missing", "reject", p, c)
p, c = mcast("recv-before-load"); case("wrong/multicast-recv-before-load", "reject", p, c)
p, c = mcast("recv-wrong-group"); case("wrong/multicast-recv-other-chips-group", "reject", p, c)
p, c = mcast("recv-twice"); case("wrong/multicast-recv-twice", "reject", p, c)
# ---- scratch round trip; read before the write that feeds it
def scratch(variant):
    p, c = split()
    for k in (0, 1):
        s = [k, 0, 0]
        p["tensors"].append(T(f"sp.{k}", [R, D], k, "scratch")); p["buffers"].append(B(f"pb.{k}", [R, D], s))
        m = st_by_id(p, f"mm2.{k}"); i = p["stages"].index(m)
        st_ = store(f"ssp.{k}", s, f"p.{k}", f"sp.{k}", [0, 0], [R, D]); ld = load(f"lsp.{k}", s, f"pb.{k}", f"sp.{k}", [0, 0], [R, D])
        if variant == "read-before-write" and k == 1:
            p["stages"][i:i] = [ld]; p["stages"].insert(i + 2, st_)
        elif variant == "other-rows" and k == 1:
            ld["kind"]["pattern"] = blk([1, 0], [1, D]); st_["kind"]["pattern"] = blk([0, 0], [1, D]); st_["kind"]["subBlocks"] = [1, D]
            p["stages"][i + 1:i + 1] = [st_, ld]
        else:
            p["stages"][i + 1:i + 1] = [st_, ld]
    ar = st_by_id(p, "ar"); ar["ins"] = ["pb.0", "pb.1"]
    return p, c
p, c = scratch("ok"); case("right/partial-scratch-round-trip", "holds", p, c)
p, c = scratch("read-before-write"); case("wrong/partial-scratch-read-before-write", "reject", p, c)
# ---- params: a decode position that decides a cache row
def cache(split_off, parent_off="pos", chip1_off=None, top=3):
    p, c = split()
    p["params"] = [{"name": "pos", "min": 0, "max": top}]
    for k in (0, 1):
        s = [k, 0, 0]
        p["tensors"].append(T(f"kv.{k}", [4, D], k, "state")); c["shards"].append(sd(f"kv.{k}", "kv", 0, 0, 4, 4))
        p["buffers"].append(B(f"row.{k}", [1, D], s))
        i = p["stages"].index(st_by_id(p, f"sy.{k}"))
        off = chip1_off if (k == 1 and chip1_off) else split_off
        p["stages"][i + 1:i + 1] = [{"id": f"sl.{k}", "site": s, "ins": [f"y.{k}"], "outs": [f"row.{k}"], "kind": {"type": "Compute", "op": {"type": "slice", "starts": [0, 0]}}},
                                    store(f"skv.{k}", s, f"row.{k}", f"kv.{k}", [off, 0], [1, D])]
    u = unsplit(); u["params"] = [{"name": "pos", "min": 0, "max": top}]; u["tensors"].append(T("kv", [4, D], 0, "state")); u["buffers"].append(B("row", [1, D], [0, 0, 0]))
    u["stages"] += [{"id": "sl", "site": [0, 0, 0], "ins": ["y"], "outs": ["row"], "kind": {"type": "Compute", "op": {"type": "slice", "starts": [0, 0]}}},
                    store("skv", [0, 0, 0], "row", "kv", [parent_off, 0], [1, D])]
    return p, c, u
p, c, u = cache("pos"); case("right/cache-row-at-pos", "holds", p, c, par=u)
p, c, u = cache("pos", chip1_off="3 - pos"); case("wrong/cache-row-chip1-mirrored-pos", "reject", p, c, par=u)
p, c, u = cache("3 - pos"); case("wrong/cache-row-mirrored-pos-everywhere", "reject", p, c, par=u)
p, c, u = cache("0"); case("wrong/cache-row-constant-instead-of-pos", "reject", p, c, par=u)
# ---- reduction: row sum of a column-sharded hidden, completed by an all-reduce
def rowsum(axis, pool="sum", fn="sum"):
    p, c = split()
    for k in (0, 1):
        s = [k, 0, 0]
        p["tensors"].append(T(f"z.{k}", [R, 1], k, "output")); c["shards"].append(sd(f"z.{k}", "z", 0, 0, R, R))
        p["buffers"] += [B(f"hs.{k}", [R, 1] if axis == 1 else [1, F // 2], s), B(f"zs.{k}", [R, 1] if axis == 1 else [1, F // 2], s)]
        i = p["stages"].index(st_by_id(p, f"act.{k}"))
        p["stages"].insert(i + 1, {"id": f"rs.{k}", "site": s, "ins": [f"a.{k}"], "outs": [f"hs.{k}"], "kind": {"type": "Compute", "op": {"type": "reduce", "fn": fn, "axis": axis}}})
    p["stages"].append(allred("arz", [0, 0, 0], ["hs.0", "hs.1"], ["zs.0", "zs.1"], "z", "add(in0, in1)" if pool == "sum" else f"{pool}(in0, in1)", pool=pool))
    for k in (0, 1):
        p["stages"].append(store(f"sz.{k}", [k, 0, 0], f"zs.{k}", f"z.{k}", [0, 0], [R, 1]))
    u = unsplit(); u["tensors"].append(T("z", [R, 1], 0, "output")); u["buffers"].append(B("z", [R, 1], [0, 0, 0]))
    u["stages"] += [{"id": "rs", "site": [0, 0, 0], "ins": ["a"], "outs": ["z"], "kind": {"type": "Compute", "op": {"type": "reduce", "fn": "sum", "axis": 1}}},
                    store("sz", [0, 0, 0], "z", "z", [0, 0], [R, 1])]
    return p, c, u
p, c, u = rowsum(1); case("right/row-sum-over-column-shards", "holds", p, c, par=u)
p, c, u = rowsum(1, pool="max", fn="max"); case("wrong/row-max-where-parent-sums", "reject", p, c, par=u)
p, c, u = rowsum(1, pool="max", fn="sum"); case("wrong/row-sum-completed-by-max", "reject", p, c, par=u)
# ---- narrowing on one chip only
p, c = split(); 
for bb in p["buffers"]:
    if bb["name"] == "p.1": bb["dtype"] = "bf16"
case("wrong/chip1-partial-bf16", "reject", p, c)

# ---- params deciding which rows a chip reads
def param_rows(off1, lo, hi):
    p, c = split()
    p["params"] = [{"name": "s", "min": lo, "max": hi}]
    for k in (0, 1):
        for t in p["tensors"]:
            if t["name"] == f"w2.{k}": t["shape"] = [8, 8]
        c["shards"] = [sd(f"w2.{k}", "w2", 0, 0, 8, 8) if x["tensor"] == f"w2.{k}" else x for x in c["shards"]]
    st_by_id(p, "lw2.0")["kind"]["pattern"] = blk([0, 0], [4, 8])
    st_by_id(p, "lw2.1")["kind"]["pattern"] = blk([off1, 0], [4, 8])
    return p, c
p, c = param_rows(4, 0, 0); case("right/replicated-weight-rows-at-constant-offset", "holds", p, c)
p, c = param_rows("4*s", 1, 1); case("right/replicated-weight-rows-at-param-fixed-to-1", "holds", p, c)
p, c = param_rows("4*s", 0, 1); case("wrong/replicated-weight-rows-chosen-by-param", "reject", p, c)
p, c = param_rows("4*s", 0, 1); c["shards"] = [x for x in c["shards"] if not x["tensor"].startswith("w2")]; case("wrong/undeclared-weight-rows-chosen-by-param", "reject", p, c)
p, c = split(); p["params"] = [{"name": "s", "min": 0, "max": 1}]; st_by_id(p, "mm2.1")  # gate chip 1's partial by a parameter
p["buffers"].append(B("g.1", [R, D], [1, 0, 0])); ar = st_by_id(p, "ar"); i = p["stages"].index(ar)
p["stages"].insert(i, gen("gate.1", [1, 0, 0], ["p.1"], "g.1", "select(eq(param(s), 1), in0, 0.0)")); ar["ins"] = ["p.0", "g.1"]
case("wrong/chip1-partial-gated-by-param", "reject", p, c)
# ---- a dynamic offset through a Scalar stage
def scalar_off(body0, body1, parent_off="pos"):
    p, c, u = cache("pos")
    for k, body in ((0, body0), (1, body1)):
        s = [k, 0, 0]
        p["buffers"].append(B(f"off.{k}", [1], s, "i32"))
        i = p["stages"].index(st_by_id(p, f"skv.{k}"))
        p["stages"].insert(i, {"id": f"sc.{k}", "site": s, "ins": [], "outs": [f"off.{k}"], "kind": {"type": "Scalar", "body": [body]}})
        st_by_id(p, f"skv.{k}")["kind"]["pattern"]["origin"] = [f"@off.{k}", 0]
    return p, c, u
p, c, u = scalar_off("param(pos)", "param(pos)"); case("right/cache-row-at-scalar-offset", "holds", p, c, par=u)
p, c, u = scalar_off("param(pos)", "add(param(pos), 1)"); case("wrong/cache-row-scalar-offset-off-by-one-chip1", "reject", p, c, par=u)
p, c, u = scalar_off("add(param(pos), 1)", "add(param(pos), 1)"); case("wrong/cache-row-scalar-offset-off-by-one-everywhere", "reject", p, c, par=u)
# ---- reduce over the wrong axis
p, c, u = rowsum(0); 
for t in p["tensors"]:
    if t["name"].startswith("z."): t["shape"] = [1, F // 2]
for s_ in p["stages"]:
    if s_["id"].startswith("sz."): s_["kind"]["pattern"] = blk([0, 0], [1, F // 2]); s_["kind"]["subBlocks"] = [1, F // 2]
c["shards"] = [sd(x["tensor"], "z", 0, 0, 1, 1) if x["tensor"].startswith("z.") else x for x in c["shards"]]
case("wrong/row-sum-over-the-wrong-axis", "reject", p, c, par=u)
# ---- output stores overwritten
def overwrite(first_garbage):
    p, c = split()
    s = [1, 0, 0]
    p["buffers"].append(B("junk.1", [R, D], s))
    i = p["stages"].index(st_by_id(p, "sy.1"))
    junk = [gen("junk.1", s, ["x.1"], "junk.1", "exp(in0)"), store("sjunk.1", s, "junk.1", "y.1", [0, 0], [R, D])]
    if first_garbage:
        p["stages"][i:i] = junk
    else:
        p["stages"][i + 1:i + 1] = junk
    return p, c
p, c = overwrite(True); case("right/output-garbage-then-overwritten", "holds", p, c)
p, c = overwrite(False); case("wrong/output-overwritten-with-garbage", "reject", p, c)
# ---- data-parallel rows: each chip computes its own rows whole, weights replicated
def rows_dp(variant):
    t, b, st, sh = [], [], [], []
    for k in (0, 1):
        s = [k, 0, 0]
        t += [T(f"x.{k}", [1, D], k, "input"), T(f"w1.{k}", [D, F], k, "weight"), T(f"w2.{k}", [F, D], k, "weight"), T(f"b2.{k}", [1, D], k, "weight"), T(f"y.{k}", [1, D], k, "output")]
        ystart = k if variant != "overlap" else 0
        sh += [sd(f"x.{k}", "x", 0, k, k + 1, R), sd(f"w1.{k}", "w1", 0, 0, D, D), sd(f"w2.{k}", "w2", 0, 0, F, F), sd(f"b2.{k}", "b2", 0, 0, 1, 1), sd(f"y.{k}", "y", 0, ystart, ystart + 1, R)]
        b += [B(f"x.{k}", [1, D], s), B(f"w1.{k}", [D, F], s), B(f"h.{k}", [1, F], s), B(f"a.{k}", [1, F], s), B(f"w2.{k}", [F, D], s), B(f"p.{k}", [1, D], s), B(f"b.{k}", [1, D], s), B(f"y.{k}", [1, D], s)]
        act = "sigmoid(in0)" if (variant == "chip1-act" and k == 1) else "tanh(in0)"
        st += [load(f"lx.{k}", s, f"x.{k}", f"x.{k}", [0, 0], [1, D]), load(f"lw1.{k}", s, f"w1.{k}", f"w1.{k}", [0, 0], [D, F]), mm(f"mm1.{k}", s, [f"x.{k}", f"w1.{k}"], f"h.{k}"),
               gen(f"act.{k}", s, [f"h.{k}"], f"a.{k}", act), load(f"lw2.{k}", s, f"w2.{k}", f"w2.{k}", [0, 0], [F, D]), mm(f"mm2.{k}", s, [f"a.{k}", f"w2.{k}"], f"p.{k}"),
               load(f"lb.{k}", s, f"b.{k}", f"b2.{k}", [0, 0], [1, D]), gen(f"addb.{k}", s, [f"p.{k}", f"b.{k}"], f"y.{k}", "add(in0, in1)"), store(f"sy.{k}", s, f"y.{k}", f"y.{k}", [0, 0], [1, D])]
    return prog("mlp-rows", 2, t, b, st), cert(sh)
p, c = rows_dp("ok"); case("right/data-parallel-rows", "holds", p, c)
p, c = rows_dp("chip1-act"); case("wrong/data-parallel-rows-chip1-other-activation", "reject", p, c)
p, c = rows_dp("overlap"); case("wrong/data-parallel-rows-output-windows-leave-a-gap", "reject", p, c)
# ---- bias on one chip before the reduce (right), and on both (wrong)
def bias_before(chips):
    p, c = split()
    for k in chips:
        s = [k, 0, 0]
        p["buffers"].append(B(f"pb.{k}", [R, D], s))
        i = p["stages"].index(st_by_id(p, f"mm2.{k}"))
        p["stages"][i + 1:i + 1] = [load(f"lb0.{k}", s, f"b.{k}", f"b2.{k}", [0, 0], [1, D]), gen(f"pbias.{k}", s, [f"p.{k}", f"b.{k}"], f"pb.{k}", "add(in0, in1)")]
    ar = st_by_id(p, "ar"); ar["ins"] = [f"pb.{k}" if k in chips else f"p.{k}" for k in (0, 1)]
    for k in (0, 1):
        st_by_id(p, f"addb.{k}")["kind"]["op"]["expr"] = "in0"; st_by_id(p, f"addb.{k}")["ins"] = [f"r.{k}"]
        p["stages"].remove(st_by_id(p, f"lb.{k}"))
    return p, c
p, c = bias_before([0]); case("right/bias-on-one-chip-before-reduce", "holds", p, c)
p, c = bias_before([0, 1]); case("wrong/bias-on-every-chip-before-reduce", "reject", p, c)

p, c = rows_dp("ok"); c["shards"] = [dict(x, start=0, end=1) if x["tensor"] in ("x.1", "y.1") else x for x in c["shards"]]; case("wrong/data-parallel-both-chips-compute-row-0", "reject", p, c)
p, c, u = cache("pos + pos - pos"); case("right/cache-row-at-pos-written-longhand", "holds", p, c, par=u)
p, c, u = cache("pos + pos"); case("wrong/cache-row-at-twice-pos", "reject", p, c, par=u)

p, c = split(); p["buffers"].append(B("pp.1", [R, D], [1, 0, 0])); ar = st_by_id(p, "ar"); i = p["stages"].index(ar)
p["stages"].insert(i, gen("self.1", [1, 0, 0], ["p.1", "p.1"], "pp.1", "add(in0, in1)")); ar["ins"] = ["p.0", "pp.1"]
case("wrong/chip1-partial-added-to-itself", "reject", p, c)
p, c = split(); st_by_id(p, "ar")["kind"]["combine"] = "add(f32(bf16(in0)), f32(bf16(in1)))"; case("wrong/allreduce-combine-rounds-to-bf16", "reject", p, c)
p, c = split()
for k in (0, 1):
    p["buffers"].append(B(f"pc.{k}", [R, D], [k, 0, 0])); i = p["stages"].index(st_by_id(p, "ar"))
    p["stages"].insert(i, gen(f"round.{k}", [k, 0, 0], [f"p.{k}"], f"pc.{k}", "f32(bf16(in0))"))
st_by_id(p, "ar")["ins"] = ["pc.0", "pc.1"]
case("wrong/partials-cast-through-bf16", "reject", p, c)

def write(path, doc):
    lines = []
    for i, (k, v) in enumerate(doc.items()):
        if isinstance(v, list) and v:
            lines.append(f' {json.dumps(k)}: [\n' + ',\n'.join('  ' + json.dumps(x) for x in v) + '\n ]')
        else:
            lines.append(f' {json.dumps(k)}: {json.dumps(v)}')
    with open(path, "w") as f:
        f.write('{\n' + ',\n'.join(lines) + '\n}\n')

# ---- column-parallel output: each chip stores its columns of h = x @ w1, no all-reduce
def colpar(variant):
    t, b, st, sh = [], [], [], []
    f = F // 2
    for k in (0, 1):
        s = [k, 0, 0]
        t += [T(f"x.{k}", [R, D], k, "input"), T(f"w1.{k}", [D, f], k, "weight"), T(f"h.{k}", [R, f], k, "output")]
        hstart = (1 - k) * f if variant == "swapped-output-windows" else k * f
        sh += [sd(f"x.{k}", "x", 0, 0, R, R), sd(f"w1.{k}", "w1", 1, k * f, (k + 1) * f, F), sd(f"h.{k}", "h", 1, hstart, hstart + f, F)]
        b += [B(f"x.{k}", [R, D], s), B(f"w1.{k}", [D, f], s), B(f"h.{k}", [R, f], s)]
        st += [load(f"lx.{k}", s, f"x.{k}", f"x.{k}", [0, 0], [R, D]), load(f"lw1.{k}", s, f"w1.{k}", f"w1.{k}", [0, 0], [D, f]),
               mm(f"mm1.{k}", s, [f"x.{k}", f"w1.{k}"], f"h.{k}"), store(f"sh.{k}", s, f"h.{k}", f"h.{k}", [0, 0], [R, f])]
    s0 = [0, 0, 0]
    u = prog("colpar-unsplit", 1, [T("x", [R, D], 0, "input"), T("w1", [D, F], 0, "weight"), T("h", [R, F], 0, "output")],
             [B("x", [R, D], s0), B("w1", [D, F], s0), B("h", [R, F], s0)],
             [load("lx", s0, "x", "x", [0, 0], [R, D]), load("lw1", s0, "w1", "w1", [0, 0], [D, F]), mm("mm1", s0, ["x", "w1"], "h"), store("sh", s0, "h", "h", [0, 0], [R, F])])
    return prog("colpar", 2, t, b, st), cert(sh), u
p, c, u = colpar("ok"); case("right/column-parallel-output", "holds", p, c, par=u)
p, c, u = colpar("swapped-output-windows"); case("wrong/column-parallel-output-windows-swapped", "reject", p, c, par=u)
# ---- transposed weight layout (the parent uses transposeB too), shards on axis 1
def transposed(variant):
    p, c = split()
    u = unsplit()
    for t in u["tensors"]:
        if t["name"] == "w2": t["shape"] = [D, F]
    for bb in u["buffers"]:
        if bb["name"] == "w2": bb["shape"] = [D, F]
    st_by_id(u, "lw2")["kind"]["pattern"] = blk([0, 0], [D, F]); st_by_id(u, "mm2")["kind"]["op"]["transposeB"] = True
    for k in (0, 1):
        for t in p["tensors"]:
            if t["name"] == f"w2.{k}": t["shape"] = [D, F // 2]
        for bb in p["buffers"]:
            if bb["name"] == f"w2.{k}": bb["shape"] = [D, F // 2]
        st_by_id(p, f"lw2.{k}")["kind"]["pattern"] = blk([0, 0], [D, F // 2]); st_by_id(p, f"mm2.{k}")["kind"]["op"]["transposeB"] = True
        start = k * 4 if variant == "ok" else 0
        c["shards"] = [sd(f"w2.{k}", "w2", 1, start, start + 4, F) if x["tensor"] == f"w2.{k}" else x for x in c["shards"]]
    return p, c, u
p, c, u = transposed("ok"); case("right/transposed-weight-shards-on-axis-1", "holds", p, c, par=u)
p, c, u = transposed("both-claim-first-half"); case("wrong/transposed-weight-both-chips-claim-the-first-half", "reject", p, c, par=u)
# ---- partials stored to outputs declared partial, never reduced
p, c = split()
ar = st_by_id(p, "ar"); p["stages"].remove(ar)
for k in (0, 1):
    st_by_id(p, f"addb.{k}")["ins"] = [f"p.{k}", f"b.{k}"]
c["shards"] = [sd(x["tensor"], "w2", 0, 4 * int(x["tensor"][-1]), 4 * int(x["tensor"][-1]) + 4, F) if x["tensor"].startswith("y.") else x for x in c["shards"]]
case("wrong/partials-stored-to-outputs-declared-partial", "reject", p, c)
p, c = split(); ar = st_by_id(p, "ar"); p["stages"].remove(ar)
for k in (0, 1):
    st_by_id(p, f"addb.{k}")["ins"] = [f"p.{k}", f"b.{k}"]
case("wrong/all-reduce-left-out", "reject", p, c)
# ---- streamed load of a shard's rows
def streamed(stride):
    p, c = split()
    l = st_by_id(p, "lw2.1")
    l["kind"]["pattern"] = {"type": "streamed", "origin": [0, 0], "block": [2, D], "axis": 0, "stride": stride}; l["kind"]["numBlocks"] = 2
    return p, c
p, c = streamed(2); case("right/shard-rows-streamed-in-two-blocks", "holds", p, c)
p, c = streamed(1); case("wrong/shard-rows-streamed-with-stride-one-short", "reject", p, c)

p, c, u = cache("pos + pos", top=1); case("wrong/cache-row-at-pos-plus-pos-in-bounds", "reject", p, c, par=u)

# ---- dead stages: values computed and never used
p, c = split()
for k in (0, 1):
    s_ = [k, 0, 0]
    p["buffers"] += [B(f"dp.{k}", [R, D], s_), B(f"ds.{k}", [R, D], s_)]
    p["tensors"].append(T(f"dead.{k}", [R, D], k, "scratch"))
i = p["stages"].index(st_by_id(p, "ar"))
p["stages"][i + 1:i + 1] = [gen("deadnl.0", [0, 0, 0], ["p.0"], "dp.0", "tanh(in0)"), gen("deadnl.1", [1, 0, 0], ["p.1"], "dp.1", "exp(in0)"),
                            store("deadst.0", [0, 0, 0], "p.0", "dead.0", [0, 0], [R, D]), store("deadst.1", [1, 0, 0], "dp.1", "dead.1", [0, 0], [R, D])]
case("right/dead-stages-on-partials", "holds", p, c)

# ---- a dead all-reduce of replicated values, and a first hierarchical level used as if complete
p, c = split()
for k in (0, 1):
    p["buffers"].append(B(f"dx.{k}", [R, D], [k, 0, 0]))
i = p["stages"].index(st_by_id(p, "ar"))
p["stages"].insert(i + 1, allred("deadar", [0, 0, 0], ["x.0", "x.1"], ["dx.0", "dx.1"], "x", "add(in0, in1)"))
case("limit/dead-allreduce-of-replicated-values", "reject", p, c)
p, c = hier([(0, 1), (2, 3)], [])
for k in range(4):
    st_by_id(p, f"addb.{k}")["ins"] = [f"q.{k}", f"b.{k}"]
case("wrong/hierarchical-first-level-used-as-complete", "reject", p, c)
# ---- no split at all: every chip computes the whole y from replicated weights
def replicated():
    t, b, st, sh = [], [], [], []
    for k in (0, 1):
        s = [k, 0, 0]
        t += [T(f"x.{k}", [R, D], k, "input"), T(f"w1.{k}", [D, F], k, "weight"), T(f"w2.{k}", [F, D], k, "weight"), T(f"b2.{k}", [1, D], k, "weight"), T(f"y.{k}", [R, D], k, "output")]
        sh += [sd(f"x.{k}", "x", 0, 0, R, R), sd(f"w1.{k}", "w1", 0, 0, D, D), sd(f"w2.{k}", "w2", 0, 0, F, F), sd(f"b2.{k}", "b2", 0, 0, 1, 1), sd(f"y.{k}", "y", 0, 0, R, R)]
        b += [B(f"x.{k}", [R, D], s), B(f"w1.{k}", [D, F], s), B(f"h.{k}", [R, F], s), B(f"a.{k}", [R, F], s), B(f"w2.{k}", [F, D], s), B(f"p.{k}", [R, D], s), B(f"b.{k}", [1, D], s), B(f"y.{k}", [R, D], s)]
        st += [load(f"lx.{k}", s, f"x.{k}", f"x.{k}", [0, 0], [R, D]), load(f"lw1.{k}", s, f"w1.{k}", f"w1.{k}", [0, 0], [D, F]), mm(f"mm1.{k}", s, [f"x.{k}", f"w1.{k}"], f"h.{k}"),
               gen(f"act.{k}", s, [f"h.{k}"], f"a.{k}", "tanh(in0)"), load(f"lw2.{k}", s, f"w2.{k}", f"w2.{k}", [0, 0], [F, D]), mm(f"mm2.{k}", s, [f"a.{k}", f"w2.{k}"], f"p.{k}"),
               load(f"lb.{k}", s, f"b.{k}", f"b2.{k}", [0, 0], [1, D]), gen(f"addb.{k}", s, [f"p.{k}", f"b.{k}"], f"y.{k}", "add(in0, in1)"), store(f"sy.{k}", s, f"y.{k}", f"y.{k}", [0, 0], [R, D])]
    return prog("mlp-replicated", 2, t, b, st), cert(sh)
p, c = replicated(); case("right/replicated-on-every-chip", "holds", p, c)
p, c = replicated(); p["stages"] = [x for x in p["stages"] if not x["id"].endswith(".1")]
p["tensors"] = [x for x in p["tensors"] if not x["name"].endswith(".1")]; p["buffers"] = [x for x in p["buffers"] if not x["name"].endswith(".1")]
c["shards"] = [x for x in c["shards"] if not x["tensor"].endswith(".1")]
case("right/all-on-chip-0-chip-1-idle", "holds", p, c)

# ---- chip 1 splits its contraction over two cores, the second core's share through a scratch tensor
def two_cores(variant):
    p, c = split()
    p["machine"]["width"] = 2
    m = st_by_id(p, "mm2.1"); i = p["stages"].index(m)
    s0, s1 = [1, 0, 0], [1, 1, 0]
    p["tensors"].append(T("half.1", [R, D], 1, "scratch"))
    p["buffers"] += [B("a0.1", [R, 2], s0), B("wt0.1", [2, D], s0), B("pp0.1", [R, D], s0), B("got.1", [R, D], s0),
                     B("ac.1", [R, 4], s1), B("a1.1", [R, 2], s1), B("wt1.1", [2, D], s1), B("pp1.1", [R, D], s1), B("xc.1", [R, D], s1), B("w1c.1", [D, 4], s1), B("hc.1", [R, 4], s1)]
    second = [2, 0] if variant == "ok" else [0, 0]
    p["stages"][i:i + 1] = [
        {"id": "sa0.1", "site": s0, "ins": ["a.1"], "outs": ["a0.1"], "kind": {"type": "Compute", "op": {"type": "slice", "starts": [0, 0]}}},
        load("lwt0.1", s0, "wt0.1", "w2.1", [0, 0], [2, D]), mm("mmt0.1", s0, ["a0.1", "wt0.1"], "pp0.1"),
        load("lxc.1", s1, "xc.1", "x.1", [0, 0], [R, D]), load("lw1c.1", s1, "w1c.1", "w1.1", [0, 0], [D, 4]), mm("mm1c.1", s1, ["xc.1", "w1c.1"], "hc.1"),
        gen("actc.1", s1, ["hc.1"], "ac.1", "tanh(in0)"),
        {"id": "sa1.1", "site": s1, "ins": ["ac.1"], "outs": ["a1.1"], "kind": {"type": "Compute", "op": {"type": "slice", "starts": [0, 2]}}},
        load("lwt1.1", s1, "wt1.1", "w2.1", second, [2, D]), mm("mmt1.1", s1, ["a1.1", "wt1.1"], "pp1.1"),
        store("shalf.1", s1, "pp1.1", "half.1", [0, 0], [R, D]), load("lhalf.1", s0, "got.1", "half.1", [0, 0], [R, D]),
        gen("acc.1", s0, ["pp0.1", "got.1"], "p.1", "add(in0, in1)")]
    p["stages"].remove(st_by_id(p, "lw2.1")); p["buffers"] = [b for b in p["buffers"] if b["name"] != "w2.1"]
    return p, c
p, c = two_cores("ok"); case("right/contraction-over-two-cores-through-scratch", "holds", p, c)
p, c = two_cores("second-core-reads-the-first-tile"); case("wrong/contraction-over-two-cores-second-reads-first-tile", "reject", p, c)
# ---- chip 1 computes its partial in two column tiles joined by a concat
def col_tiles(second_start):
    p, c = split()
    m = st_by_id(p, "mm2.1"); i = p["stages"].index(m)
    s = [1, 0, 0]
    p["buffers"] += [B("wc0.1", [4, 4], s), B("wc1.1", [4, 4], s), B("pc0.1", [R, 4], s), B("pc1.1", [R, 4], s)]
    p["stages"][i:i + 1] = [
        {"id": "sw0.1", "site": s, "ins": ["w2.1"], "outs": ["wc0.1"], "kind": {"type": "Compute", "op": {"type": "slice", "starts": [0, 0]}}},
        {"id": "sw1.1", "site": s, "ins": ["w2.1"], "outs": ["wc1.1"], "kind": {"type": "Compute", "op": {"type": "slice", "starts": [0, second_start]}}},
        mm("mmc0.1", s, ["a.1", "wc0.1"], "pc0.1"), mm("mmc1.1", s, ["a.1", "wc1.1"], "pc1.1"),
        {"id": "cat.1", "site": s, "ins": ["pc0.1", "pc1.1"], "outs": ["p.1"], "kind": {"type": "Compute", "op": {"type": "concat", "axis": 1}}}]
    return p, c
p, c = col_tiles(4); case("right/partial-in-two-column-tiles", "holds", p, c)
p, c = col_tiles(3); case("wrong/partial-column-tile-one-column-off", "reject", p, c)

for name, (expect, program, certificate, parent, note) in cases.items():
    d = os.path.join(OUT, name); os.makedirs(d, exist_ok=True)
    write(os.path.join(d, "program.json"), program)
    write(os.path.join(d, "certificate.json"), certificate)
    if parent: write(os.path.join(d, "parent.json"), parent)
    open(os.path.join(d, "expect"), "w").write(expect + "\n")
print(len(cases))
