#!/usr/bin/env python3
"""JIT warm-up and a small check of one FlashInfer solution of this folder.

    python3 bench/loop/flashinfer/warm.py DEFINITION

Builds small inputs for the definition, calls the solution's run() (which makes FlashInfer
compile its JIT module into FLASHINFER_WORKSPACE_BASE, the cache `kharness eval` then
reuses), then compares with the definition's own PyTorch reference on the same inputs and
prints the largest differences. Exit code 0 when run() returned (whatever the comparison),
1 when it raised. Run from the repository root on the GPU machine.
"""
import importlib.util
import json
import math
import os
import pathlib
import sys
import time
import traceback

import torch

ROOT = pathlib.Path(__file__).resolve().parents[3]
HERE = pathlib.Path(__file__).resolve().parent
dev = torch.device(os.environ.get("FI_WARM_DEVICE", "cuda"))  # cpu: for checking this script with mocks


def sync():
    if dev.type == "cuda":
        torch.cuda.synchronize()


def load_solution(name):
    spec = importlib.util.spec_from_file_location(f"fi_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run


def load_reference(name):
    code = json.loads((ROOT / "operators" / name / "definition.json").read_text())["reference"]
    scope = {}
    exec(compile(code, f"{name}/reference", "exec"), scope)
    return scope["run"]


def as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def fp8(shape, scale=1.0):
    return (torch.randn(shape, device=dev) * scale).clamp(-448, 448).to(torch.float8_e4m3fn)


def gdn_inputs(total, cu):
    n = len(cu) - 1
    q = torch.nn.functional.normalize(torch.randn(total, 4, 128, device=dev), dim=-1).to(torch.bfloat16)
    k = torch.nn.functional.normalize(torch.randn(total, 4, 128, device=dev), dim=-1).to(torch.bfloat16)
    v = torch.randn(total, 8, 128, device=dev).to(torch.bfloat16)
    state = torch.randn(n, 8, 128, 128, device=dev) * 0.1
    A_log = torch.log(torch.empty(8, device=dev).uniform_(1, 16))
    dt = torch.exp(torch.empty(8, device=dev).uniform_(math.log(1e-3), math.log(0.1)))
    dt_bias = torch.log(torch.expm1(dt))
    a = torch.randn(total, 8, device=dev).to(torch.bfloat16)
    b = torch.randn(total, 8, device=dev).to(torch.bfloat16)
    cu_seqlens = torch.tensor(cu, dtype=torch.int64, device=dev)
    return [q, k, v, state, A_log, a, dt_bias, b, cu_seqlens, 1.0 / math.sqrt(128)]


def indexer_inputs(seq_lens, max_pages, num_pages):
    batch = len(seq_lens)
    q = fp8((batch, 64, 128))
    codes = fp8((num_pages, 64 * 128)).view(torch.uint8)
    scales = (torch.rand(num_pages, 64, device=dev) * 0.02 + 0.01).view(torch.uint8)
    cache = torch.cat([codes, scales], dim=1).view(torch.int8).view(num_pages, 64, 1, 132)
    weights = torch.randn(batch, 64, device=dev)
    lens = torch.tensor(seq_lens, dtype=torch.int32, device=dev)
    table = torch.stack([torch.randperm(num_pages, device=dev)[:max_pages] for _ in range(batch)]).to(torch.int32)
    return [q, cache, weights, lens, table]


def mla_inputs(tokens, num_pages):
    q_nope = torch.randn(tokens, 16, 512, device=dev).to(torch.bfloat16)
    q_pe = torch.randn(tokens, 16, 64, device=dev).to(torch.bfloat16)
    ckv = torch.randn(num_pages, 64, 512, device=dev).to(torch.bfloat16)
    kpe = torch.randn(num_pages, 64, 64, device=dev).to(torch.bfloat16)
    rows = num_pages * 64
    idx = torch.full((tokens, 2048), -1, dtype=torch.int32, device=dev)
    for t in range(tokens):
        if t == tokens - 1:
            continue  # an all -1 list
        count = min(rows, 2048) if t % 2 == 0 else min(rows, 2048) // 3
        chosen = torch.randperm(rows, device=dev)[:count].to(torch.int32)
        if t % 2:
            slots = torch.randperm(2048, device=dev)[:count]
            idx[t, slots] = chosen
        else:
            idx[t, :count] = chosen
    return [q_nope, q_pe, ckv, kpe, idx, 1.0 / math.sqrt(192)]


def moe_inputs(tokens, offset):
    H, I, E, L = 7168, 2048, 256, 32
    logits = torch.randn(tokens, E, device=dev)
    bias = (torch.randn(E, device=dev) * 0.1).to(torch.bfloat16)
    hs = fp8((tokens, H))
    hs_scale = torch.rand(H // 128, tokens, device=dev) * 0.5 + 0.75  # magnitudes ~ the generator's
    w1 = fp8((L, 2 * I, H))
    w1s = torch.rand(L, 2 * I // 128, H // 128, device=dev) * 0.004 + 0.01
    w2 = fp8((L, H, I))
    w2s = torch.rand(L, H // 128, I // 128, device=dev) * 0.01 + 0.017
    return [logits, bias, hs, hs_scale, w1, w1s, w2, w2s, offset, 2.5]


CASES = {
    "gdn_prefill_qk4_v8_d128_k_last": lambda: [gdn_inputs(64, [0, 10, 40, 64]), gdn_inputs(3, [0, 1, 1, 3, 3, 3])],  # the second: T < N, empty sequences
    "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64": lambda: [indexer_inputs([2500, 100, 40 * 64], 40, 128)],
    "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64": lambda: [mla_inputs(5, 64)],
    "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048": lambda: [moe_inputs(4, 32), moe_inputs(300, 64)],
}


def compare(name, got, ref):
    tol = json.loads((ROOT / "operators" / name / "operator.json").read_text()).get("tolerance", {})
    atol, rtol = tol.get("atol", 0.0), tol.get("rtol", 0.0)
    for i, (g, r) in enumerate(zip(got, ref)):
        if name.startswith("dsa_topk"):
            same = all(set(g[b].tolist()) == set(r[b].tolist()) for b in range(g.shape[0]))
            print(f"  output {i}: index sets equal per row: {same}")
            continue
        g, r = g.float(), r.float()
        finite = torch.isfinite(r)
        inf_ok = bool(torch.equal(g[~finite], r[~finite])) if (~finite).any() else True
        diff = (g[finite] - r[finite]).abs()
        rel = diff / r[finite].abs().clamp_min(1e-6)
        print(f"  output {i}: shape {tuple(g.shape)} max|diff| {diff.max().item() if diff.numel() else 0:.3e} "
              f"mean|diff| {diff.mean().item() if diff.numel() else 0:.3e} max|ref| {r[finite].abs().max().item():.3e} "
              f"rel rms {((g[finite] - r[finite]).norm() / r[finite].norm().clamp_min(1e-30)).item():.3e} "
              f"non-finite equal: {inf_ok} nan in output: {bool(torch.isnan(g).any())} "
              f"share failing (|d|>{atol} and rel>{rtol}): {((diff > atol) & (rel > rtol)).float().mean().item():.4f}")


def main():
    name = sys.argv[1]
    torch.manual_seed(0)
    start = time.time()
    try:
        solution = load_solution(name)
        print(f"import {time.time() - start:.1f} s", flush=True)
        cases = CASES[name]()
        for n, inputs in enumerate(cases):
            t0 = time.time()
            got = as_tuple(solution(*inputs))
            sync()
            print(f"case {n}: first call (JIT build + run) {time.time() - t0:.1f} s", flush=True)
            t0 = time.time()
            got = as_tuple(solution(*inputs))
            sync()
            print(f"case {n}: second call {1e3 * (time.time() - t0):.2f} ms", flush=True)
    except Exception:
        traceback.print_exc()
        print(f"FAILED after {time.time() - start:.1f} s", flush=True)
        return 1
    print(f"solution ran: {time.time() - start:.1f} s", flush=True)
    try:
        reference = load_reference(name)
        for n, inputs in enumerate(cases):
            got = as_tuple(solution(*inputs))
            ref = as_tuple(reference(*inputs))
            print(f"case {n} vs the definition's reference:")
            compare(name, got, ref)
    except Exception:
        traceback.print_exc()
        print("comparison failed (the warm-up itself succeeded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
