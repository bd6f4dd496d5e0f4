#!/usr/bin/env python3
"""Writes workloads.jsonl and ci-workloads.jsonl for softmax_h4096 (a kharness definition).

Softmax over 4096 features: attention probabilities of a 4096-token context, one row per
(query, head), or a 4096-way classifier head. Batch sizes spread from a single row
(decode, one head) to 16384 rows (prefill), powers of two and odd sizes alike. The
uuids are uuid5 of a fixed name, so a second run reproduces both files byte for byte.
Run from anywhere: python3 make_workloads.py
"""
import json
import pathlib
import uuid

NAME = "softmax_h4096"

BATCH_SIZES = [1, 4, 15, 32, 77, 128, 256, 511, 1024, 2047, 4096, 8192, 16384]

# One row; a few rows; a batch that is not a multiple of any rows-per-block choice.
CI_BATCH_SIZES = [1, 3, 37]


def workload_line(key, batch_size):
    workload = {
        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"kharness/{NAME}/{key}")),
        "axes": {"batch_size": batch_size},
        "inputs": {"x": {"type": "random"}},
    }
    trace = {"definition": NAME, "solution": None, "workload": workload, "evaluation": None}
    return json.dumps(trace, separators=(",", ":"))


def write(path, lines):
    path.write_text("".join(line + "\n" for line in lines))


def main():
    here = pathlib.Path(__file__).resolve().parent
    write(here / "workloads.jsonl", [workload_line(i, b) for i, b in enumerate(BATCH_SIZES)])
    write(here / "ci-workloads.jsonl", [workload_line(f"ci/{i}", b) for i, b in enumerate(CI_BATCH_SIZES)])


if __name__ == "__main__":
    main()
