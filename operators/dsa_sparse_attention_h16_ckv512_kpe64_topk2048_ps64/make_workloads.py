#!/usr/bin/env python3
"""Writes workloads.jsonl and ci-workloads.jsonl for the DSA sparse attention operator.

Decode-like batches: num_tokens 1..8, three workloads per value (two for 8), 23 in all.
Each token is one request whose context is drawn from 2K..64K tokens; num_pages is the
pool that holds the batch's contexts plus some slack, capped at 4096 pages (295 MB of
cache) so an input set stays affordable to generate and copy. The structured-input
generator (src/eval/inputs/dsa_attention_inputs.cpp) then deals the pages out over the
tokens and draws each token's context length (3/4 to all of its pages) and index list
from the seed: 2K contexts give partly padded lists, longer ones full lists.

Deterministic: seeded, uuids are uuid5(NAMESPACE_URL, "kharness/<name>/<index>").
Run from anywhere: python3 make_workloads.py
"""
import json
import math
import os
import random
import uuid

NAME = "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64"
PAGE = 64
MAX_PAGES = 4096
SM_SCALE = 1.0 / math.sqrt(192.0)
CONTEXTS = [2048, 4096, 8192, 16384, 32768, 65536]


def line(uid, num_tokens, num_pages):
    inputs = {name: {"type": "random"} for name in ("q_nope", "q_pe", "ckv_cache", "kpe_cache", "sparse_indices")}
    inputs["sm_scale"] = {"type": "scalar", "value": SM_SCALE}
    workload = {"uuid": uid, "axes": {"num_tokens": num_tokens, "num_pages": num_pages}, "inputs": inputs}
    return json.dumps({"definition": NAME, "solution": None, "workload": workload, "evaluation": None},
                      separators=(",", ":"))


def contest_shapes():
    rng = random.Random(20260516)
    shapes = []
    for num_tokens in range(1, 9):
        # Three context sizes per batch size, spread over the range rather than drawn
        # blindly, so that short (padded) and long contexts both appear at every size.
        picks = [rng.choice(CONTEXTS[:2]), rng.choice(CONTEXTS[2:4]), rng.choice(CONTEXTS[4:])]
        if num_tokens == 8:
            picks = picks[:2]
        for context in picks:
            slack = 1.0 + rng.random() * 0.25
            pages = math.ceil(num_tokens * context / PAGE * slack)
            shapes.append((num_tokens, min(pages, MAX_PAGES)))
    return shapes


# Small enough for the CPU reference and baseline in CI. (1, 40): one token, a context of
# 1920..2560 rows, so its list is full for most seeds and padded for some. (3, 2): tokens
# 0 and 1 get one page each (48..64 valid indices: heavy padding, trailing for token 0,
# interleaved for token 1) and token 2 gets no page, so all of its indices are -1.
# (2, 64): two tokens of 1536..2048 rows, padded at the tail and interleaved.
CI_SHAPES = [(1, 40), (3, 2), (2, 64)]


def write(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    shapes = contest_shapes()
    assert len(shapes) == 23
    write(os.path.join(here, "workloads.jsonl"),
          [line(str(uuid.uuid5(uuid.NAMESPACE_URL, f"kharness/{NAME}/{i}")), t, p) for i, (t, p) in enumerate(shapes)])
    write(os.path.join(here, "ci-workloads.jsonl"),
          [line(str(uuid.uuid5(uuid.NAMESPACE_URL, f"kharness/{NAME}/ci/{i}")), t, p)
           for i, (t, p) in enumerate(CI_SHAPES)])


if __name__ == "__main__":
    main()
