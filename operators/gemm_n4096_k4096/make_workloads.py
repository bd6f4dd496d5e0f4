#!/usr/bin/env python3
"""Writes workloads.jsonl and ci-workloads.jsonl for gemm_n4096_k4096.

The M values are those of the FlashInfer-Trace workloads of this definition (Llama 3.1
8B attn.o_proj, in the same order). The uuids are our own: uuid5 of a fixed name, so a
second run reproduces both files byte for byte. Run from anywhere: python3 make_workloads.py
"""
import json
import pathlib
import uuid

NAME = "gemm_n4096_k4096"

# Decode steps (multiples of 8 up to 256, plus 1, 2, 4), and a few prefill-sized batches.
M_VALUES = [256, 248, 240, 232, 224, 216, 208, 200, 192, 184, 176, 168, 160, 152, 144, 136,
            128, 120, 112, 104, 96, 88, 80, 72, 64, 56, 48, 40, 32, 24, 16, 8, 4, 2, 1,
            7, 35, 972, 70, 2053, 8192, 2379, 15]

# CPU-sized: each row of C costs 2 * 4096 * 4096 FLOPs (~34 MFLOP), and each input set
# draws B afresh (16.7M normals), so two workloads only. M = 1 is the GEMV case; 33 is
# one row past a tile of 32, so full and partial tiles of every BLOCK_M are exercised.
CI_M_VALUES = [1, 33]


def workload_line(key, m):
    workload = {
        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"kharness/{NAME}/{key}")),
        "axes": {"M": m},
        "inputs": {"A": {"type": "random"}, "B": {"type": "random"}},
    }
    trace = {"definition": NAME, "solution": None, "workload": workload, "evaluation": None}
    return json.dumps(trace, separators=(",", ":"))


def write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))


def main():
    here = pathlib.Path(__file__).resolve().parent
    write(here / "workloads.jsonl", [workload_line(i, m) for i, m in enumerate(M_VALUES)])
    write(here / "ci-workloads.jsonl", [workload_line(f"ci/{i}", m) for i, m in enumerate(CI_M_VALUES)])


if __name__ == "__main__":
    main()
