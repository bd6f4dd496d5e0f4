#!/usr/bin/env python3
"""How far a chunked (WY) gdn_prefill kernel with low-precision matrix operands lands from the
exact recurrence, on the CPU, under this operator's input generator: the evidence behind the
operand precision of loop/candidates/chunk_tc (fp16) and the tolerance in skill.md.

    python3 chunk_precision.py [--tokens 8192 3000 200] [--seeds 4] [--operands fp16 bf16 fp32]
                               [--check fp16]   # exit 1 when an fp16 run fails the check

For each sequence length and seed, one v head: an fp64 token-by-token reference, then the
chunked form in fp32 with W, U^, P, q, k, the state and U rounded to the operand type where
they enter a matrix product (the products accumulate in fp32, the state is carried in fp32),
the output rounded to bf16. Prints the largest output and state errors and how many elements
fail the operator's check (atol 5e-3, rtol 1e-2; an element fails when beyond both, as
kharness judges). Needs numpy (exit 77 without it).
"""
import argparse
import sys

try:
    import numpy as np
except ImportError:
    np = None

DIM, CHUNK = 128, 64
ATOL, RTOL = 5e-3, 1e-2


def bf16(x):
    """Round to bfloat16 (nearest even), returned as float32."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return (((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)


ROUND = {
    "fp16": lambda x: x.astype(np.float16).astype(np.float32),
    "bf16": bf16,
    "fp32": lambda x: x.astype(np.float32),
}


def generate(rng, tokens):
    """One v head's inputs as src/eval/inputs/gdn_inputs.cpp draws them (unit-norm q, k)."""
    q = rng.standard_normal((tokens, DIM))
    k = rng.standard_normal((tokens, DIM))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    v = rng.standard_normal((tokens, DIM))
    a, b = bf16(rng.standard_normal(tokens)), bf16(rng.standard_normal(tokens))
    a_log = np.log(rng.uniform(1, 16))
    dt = np.exp(rng.uniform(np.log(1e-3), np.log(0.1)))
    x = a + np.log(np.expm1(dt))
    softplus = np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20))))
    log_g = (-np.exp(a_log) * softplus).astype(np.float32)
    beta = (1 / (1 + np.exp(-b))).astype(np.float32)
    state = rng.standard_normal((DIM, DIM)) * 0.1  # S = state^T: [K][V]
    return bf16(q), bf16(k), bf16(v), log_g, beta, state


def recurrent(q, k, v, log_g, beta, state, scale):
    s = state.astype(np.float64).copy()
    out = np.zeros((len(q), DIM))
    for t in range(len(q)):
        s *= np.exp(log_g[t])
        s += np.outer(k[t], beta[t] * (v[t] - k[t] @ s))
        out[t] = scale * (q[t] @ s)
    return out, s


def chunked(q, k, v, log_g, beta, state, scale, rnd):
    s = state.astype(np.float32).copy()
    out = np.zeros((len(q), DIM), np.float32)
    for c0 in range(0, len(q), CHUNK):
        n = min(CHUNK, len(q) - c0)
        K, Q, V = (np.zeros((CHUNK, DIM), np.float32) for _ in range(3))
        lg_step, bt = np.zeros(CHUNK, np.float32), np.zeros(CHUNK, np.float32)
        K[:n], Q[:n], V[:n] = k[c0:c0 + n], q[c0:c0 + n], v[c0:c0 + n]
        lg_step[:n], bt[:n] = log_g[c0:c0 + n], beta[c0:c0 + n]
        lg = np.cumsum(lg_step).astype(np.float32)
        decay = np.exp(np.minimum(lg[:, None] - lg[None, :], 0)).astype(np.float32)
        a = np.tril(bt[:, None] * decay * (K @ K.T), -1)
        p = np.tril(decay * (Q @ K.T))
        m = np.eye(CHUNK, dtype=np.float32) + a
        w = np.linalg.solve(m, (bt * np.exp(lg))[:, None] * K).astype(np.float32)
        u_hat = np.linalg.solve(m, bt[:, None] * V).astype(np.float32)
        s_op = rnd(s)
        u = rnd(u_hat) - rnd(w) @ s_op
        o = scale * (np.exp(lg)[:, None] * (rnd(Q) @ s_op) + rnd(p) @ rnd(u))
        out[c0:c0 + n] = o[:n]
        s = np.exp(lg[-1]) * s + rnd(K).T @ rnd(u * np.exp(lg[-1] - lg)[:, None])
    return bf16(out), s


def failing(err, ref) -> int:
    """Elements kharness's check fails: beyond atol and beyond rtol of the reference, both."""
    return int(((err > ATOL) & (err / (np.abs(ref) + 1e-8) > RTOL)).sum())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--tokens", type=int, nargs="+", default=[8192, 3000, 200])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--operands", nargs="+", choices=sorted(ROUND), default=["fp16", "bf16", "fp32"])
    parser.add_argument("--check", nargs="+", choices=sorted(ROUND), default=[],
                        help="exit 1 when any element of these operands' runs fails the check")
    args = parser.parse_args()
    if np is None:
        print("chunk_precision.py: needs numpy (python3 -m pip install numpy)", file=sys.stderr)
        return 77  # CTest's skip code
    scale = 1 / np.sqrt(DIM)
    worst = {name: [0.0, 0.0, 0] for name in args.operands}
    print(f"{'tokens':>6} {'seed':>4} {'operands':>8} {'output max err':>14} {'state max err':>13} {'fails':>5}")
    for tokens in args.tokens:
        for seed in range(args.seeds):
            inputs = generate(np.random.default_rng(seed), tokens)
            out_ref, s_ref = recurrent(*inputs, scale)
            for name in args.operands:
                out, s = chunked(*inputs, scale, ROUND[name])
                e_out, e_s = np.abs(out - out_ref), np.abs(s - s_ref)
                fails = failing(e_out, out_ref) + failing(e_s, s_ref)
                w = worst[name]
                w[0], w[1], w[2] = max(w[0], e_out.max()), max(w[1], e_s.max()), w[2] + fails
                print(f"{tokens:>6} {seed:>4} {name:>8} {e_out.max():>14.2e} {e_s.max():>13.2e} {fails:>5}")
    for name, (e_out, e_s, fails) in worst.items():
        print(f"worst {name}: output {e_out:.2e}, state {e_s:.2e}, {fails} failing elements (atol {ATOL}, rtol {RTOL})")
    failed = [name for name in args.check if worst.get(name, [0, 0, 0])[2]]
    if failed:
        print(f"chunk_precision.py: elements fail the operator's check with {', '.join(failed)} operands")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
