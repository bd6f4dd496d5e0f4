#!/usr/bin/env python3
"""Writes workloads.jsonl and ci-workloads.jsonl for dsa_topk_indexer_fp8_h64_d128_topk2048_ps64.

Decode batches of 1..31 requests whose longest sequence spans max_num_pages pages
(32..512 pages of 64 tokens: 2K..32K tokens, log-uniform, as context lengths in a
serving engine are). num_pages, the key-cache pool, is 0.6x..1.3x the block table's
size (batch_size * max_num_pages), never below max_num_pages: the input generator
gives each request ceil(seq_len / 64) distinct pages, disjoint across requests when
the pool holds them all and shared between requests (as a prefix cache shares them)
when it does not. The sequence lengths themselves are data, drawn per seed by
src/eval/inputs/dsa_topk_inputs.cpp. Deterministic: fixed seed, uuid5 names.
"""
import json
import math
import random
import uuid
from pathlib import Path

NAME = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
COUNT = 128
MIN_PAGES, MAX_PAGES = 32, 512  # topk <= max_num_pages * 64 needs at least 32
INPUTS = {name: {"type": "random"}
          for name in ("q_index_fp8", "k_index_cache_fp8", "weights", "seq_lens", "block_table")}

# (batch_size, max_num_pages, num_pages): tiny, yet padding (a request under 2048
# tokens), a 2048-token boundary and pages shared between requests all occur.
CI = [(1, 32, 40), (3, 40, 100), (2, 36, 36)]


def batch_size(rng: random.Random) -> int:
    # Decode batches: mostly small, some medium, a tail up to 31.
    r = rng.random()
    if r < 0.4:
        return rng.randint(1, 4)
    if r < 0.75:
        return rng.randint(5, 16)
    return rng.randint(17, 31)


def max_num_pages(rng: random.Random) -> int:
    return int(round(math.exp(rng.uniform(math.log(MIN_PAGES), math.log(MAX_PAGES)))))


def num_pages(rng: random.Random, batch: int, pages: int) -> int:
    return max(pages, int(round(batch * pages * rng.uniform(0.6, 1.3))))


def line(uid: str, batch: int, pages: int, pool: int) -> str:
    trace = {"definition": NAME, "solution": None,
             "workload": {"uuid": uid,
                          "axes": {"batch_size": batch, "max_num_pages": pages, "num_pages": pool},
                          "inputs": INPUTS},
             "evaluation": None}
    return json.dumps(trace, separators=(",", ":"))


def main() -> None:
    rng = random.Random(0xD5A70E)
    shapes = []
    for _ in range(COUNT):
        batch = batch_size(rng)
        pages = max_num_pages(rng)
        shapes.append((batch, pages, num_pages(rng, batch, pages)))
    # The corners: the smallest and largest batch and context.
    shapes[0] = (1, MIN_PAGES, MIN_PAGES)
    shapes[1] = (31, MAX_PAGES, num_pages(rng, 31, MAX_PAGES))
    shapes[2] = (1, MAX_PAGES, MAX_PAGES)
    shapes[3] = (31, MIN_PAGES, num_pages(rng, 31, MIN_PAGES))
    here = Path(__file__).resolve().parent
    with open(here / "workloads.jsonl", "w") as f:
        for i, (b, p, n) in enumerate(shapes):
            f.write(line(str(uuid.uuid5(uuid.NAMESPACE_URL, f"kharness/{NAME}/{i}")), b, p, n) + "\n")
    with open(here / "ci-workloads.jsonl", "w") as f:
        for i, (b, p, n) in enumerate(CI):
            f.write(line(str(uuid.uuid5(uuid.NAMESPACE_URL, f"kharness/{NAME}/ci/{i}")), b, p, n) + "\n")


if __name__ == "__main__":
    main()
