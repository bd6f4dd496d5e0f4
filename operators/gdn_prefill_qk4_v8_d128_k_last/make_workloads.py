#!/usr/bin/env python3
"""Writes workloads.jsonl and ci-workloads.jsonl for gdn_prefill_qk4_v8_d128_k_last.

100 workloads with total_seq_len in 6..8192 and num_seqs in 1..57, the contest's ranges,
in a serving-like mix: single long prompts (chunked prefill up to 8192 tokens), batches
of a few medium prompts, and many-sequence batches of short ones. How the tokens split
into sequences (cu_seqlens) is drawn by the structured-input generator from the seed:
skewed, so some sequences are long and some are a single token. Every tensor is "random";
scale is the model's 1/sqrt(128). Seeded, so the files are reproducible.
"""
import json
import math
import pathlib
import random
import uuid

NAME = "gdn_prefill_qk4_v8_d128_k_last"
HERE = pathlib.Path(__file__).resolve().parent
TENSORS = ["q", "k", "v", "state", "A_log", "a", "dt_bias", "b", "cu_seqlens"]
SCALE = 1.0 / math.sqrt(128)
MIN_TOKENS, MAX_TOKENS, MAX_SEQS = 6, 8192, 57
# CI: a single sequence with scale 0 (meaning 1/sqrt(head_size)), three sequences, and
# more sequences than tokens, so that at least one sequence is empty (new_state zeros).
CI = [(37, 1, 0.0), (64, 3, SCALE), (6, 8, SCALE)]


def line(key, total, num_seqs, scale):
    inputs = {name: {"type": "random"} for name in TENSORS}
    inputs["scale"] = {"type": "scalar", "value": scale}
    workload = {
        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"kharness/{NAME}/{key}")),
        "axes": {"total_seq_len": total, "num_seqs": num_seqs, "len_cu_seqlens": num_seqs + 1},
        "inputs": inputs,
    }
    record = {"definition": NAME, "solution": None, "workload": workload, "evaluation": None}
    return json.dumps(record, separators=(",", ":"))


def log_uniform(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def shapes(rng):
    """(total_seq_len, num_seqs) pairs: the extremes first, then the three regimes."""
    pairs = [(8192, 1), (MIN_TOKENS, 2), (8192, MAX_SEQS), (190, MAX_SEQS), (6, 1)]
    for _ in range(17):  # single prompts
        pairs.append((int(log_uniform(rng, MIN_TOKENS, MAX_TOKENS)), 1))
    for _ in range(30):  # a few medium prompts
        n = rng.randint(2, 8)
        pairs.append((min(MAX_TOKENS, n * int(log_uniform(rng, 16, 2048))), n))
    while len(pairs) < 100:  # many short prompts
        n = rng.randint(8, MAX_SEQS)
        pairs.append((max(n, min(MAX_TOKENS, int(n * log_uniform(rng, 1.5, 160)))), n))
    return pairs


def main():
    rng = random.Random(20260529)
    pairs = shapes(rng)
    assert len(pairs) == 100
    assert min(t for t, _ in pairs) == MIN_TOKENS and max(t for t, _ in pairs) == MAX_TOKENS
    assert min(n for _, n in pairs) == 1 and max(n for _, n in pairs) == MAX_SEQS
    lines = [line(i, t, n, SCALE) for i, (t, n) in enumerate(pairs)]
    (HERE / "workloads.jsonl").write_text("\n".join(lines) + "\n")
    ci = [line(f"ci/{i}", t, n, s) for i, (t, n, s) in enumerate(CI)]
    (HERE / "ci-workloads.jsonl").write_text("\n".join(ci) + "\n")


if __name__ == "__main__":
    main()
