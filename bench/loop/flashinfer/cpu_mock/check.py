# Checks the solutions' glue on the CPU: FlashInfer replaced by the mocks of this folder (the
# semantics read from the 0.6.4 sources), compared with the definitions' references.
#   PYTHONPATH=bench/loop/flashinfer/cpu_mock:<a torch> python3 bench/loop/flashinfer/cpu_mock/check.py
import importlib.util, json, math, pathlib, sys
import torch
ROOT = pathlib.Path(__file__).resolve().parents[4]
HERE = ROOT / "bench/loop/flashinfer"
torch.manual_seed(0)

def load(name):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m.run

def ref(name):
    scope = {}; exec(json.loads((ROOT / "operators" / name / "definition.json").read_text())["reference"], scope)
    return scope["run"]

def tup(x): return tuple(x) if isinstance(x, (tuple, list)) else (x,)

def fp8(shape, s=1.0): return (torch.randn(shape) * s).clamp(-448, 448).to(torch.float8_e4m3fn)

def diff(a, b):
    a, b = a.float(), b.float(); f = torch.isfinite(b)
    return (a[f] - b[f]).abs().max().item(), bool(torch.equal(a[~f], b[~f]))

# gdn
name = "gdn_prefill_qk4_v8_d128_k_last"
def gdn(total, cu):
    n = len(cu) - 1
    q = torch.nn.functional.normalize(torch.randn(total, 4, 128), dim=-1).bfloat16()
    k = torch.nn.functional.normalize(torch.randn(total, 4, 128), dim=-1).bfloat16()
    v = torch.randn(total, 8, 128).bfloat16()
    st = torch.randn(n, 8, 128, 128) * 0.1
    A_log = torch.log(torch.empty(8).uniform_(1, 16)); dt = torch.exp(torch.empty(8).uniform_(math.log(1e-3), math.log(.1)))
    return [q, k, v, st, A_log, torch.randn(total, 8).bfloat16(), torch.log(torch.expm1(dt)), torch.randn(total, 8).bfloat16(),
            torch.tensor(cu, dtype=torch.int64), 0.0]
for inp in [gdn(7, [0, 2, 7]), gdn(3, [0, 1, 1, 3, 3, 3])]:
    g, r = tup(load(name)(*inp)), tup(ref(name)(*inp))
    print(name, [tuple(x.shape) for x in g], [x.dtype for x in g], [diff(a, b) for a, b in zip(g, r)])

# topk
name = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
def topk(seq, P, NP):
    B = len(seq)
    codes = fp8((NP, 64 * 128)).view(torch.uint8); sc = (torch.rand(NP, 64) * .02 + .01).view(torch.uint8)
    cache = torch.cat([codes, sc], 1).view(torch.int8).view(NP, 64, 1, 132)
    bt = torch.stack([torch.randperm(NP)[:P] for _ in range(B)]).int()
    for b, n in enumerate(seq):  # garbage past the used pages
        bt[b, (n + 63) // 64:] = 10**6
    return [fp8((B, 64, 128)), cache, torch.randn(B, 64), torch.tensor(seq, dtype=torch.int32), bt]
for inp in [topk([2500, 100, 0, 40 * 64], 40, 128)]:
    g, r = tup(load(name)(*inp)), tup(ref(name)(*inp))
    print(name, g[0].shape, g[0].dtype, [set(g[0][b].tolist()) == set(r[0][b].tolist()) for b in range(g[0].shape[0])])

# mla
name = "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64"
T, NP = 4, 40; rows = NP * 64
idx = torch.full((T, 2048), -1, dtype=torch.int32)
idx[0, :2048] = torch.randperm(rows)[:2048].int()
sl = torch.randperm(2048)[:500]; idx[1, sl] = torch.randperm(rows)[:500].int()
idx[2, 5] = 7; idx[2, 9] = 7  # duplicates
inp = [torch.randn(T, 16, 512).bfloat16(), torch.randn(T, 16, 64).bfloat16(), torch.randn(NP, 64, 512).bfloat16(),
       torch.randn(NP, 64, 64).bfloat16(), idx, 1 / math.sqrt(192)]
g, r = tup(load(name)(*inp)), tup(ref(name)(*inp))
print(name, [tuple(x.shape) for x in g], [x.dtype for x in g], [diff(a, b) for a, b in zip(g, r)], g[1][3])

# moe (small H, I)
name = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"
H, I, L, Tn = 256, 128, 32, 5
for off in (32, 40):
    inp = [torch.randn(Tn, 256), (torch.randn(256) * .1).bfloat16(), fp8((Tn, H)), torch.rand(H // 128, Tn) + .5,
           fp8((L, 2 * I, H)), torch.rand(L, 2 * I // 128, H // 128) * .01 + .05, fp8((L, H, I)),
           torch.rand(L, H // 128, I // 128) * .01 + .08, off, 2.5]
    g, r = tup(load(name)(*inp)), tup(ref(name)(*inp))
    print(name, off, g[0].shape, g[0].dtype, diff(g[0], r[0]), r[0].float().abs().max().item(), (r[0].float().abs().sum(1) == 0).sum().item())
