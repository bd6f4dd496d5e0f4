#!/usr/bin/env python3
"""Writes workloads.jsonl and ci-workloads.jsonl for gdn_decode_qk4_v8_d128_k_last.

The contest's 54 decode workloads: batch sizes 1 (x10), 4 (x8), 8, 16, 32, 48 (x7 each)
and 64 (x8). Every tensor is "random" (the structured-input generator makes q and k unit
norm, the gates' parameters realistic and the state small); scale is the model's
1/sqrt(128). Deterministic: uuids are uuid5 of a fixed name, nothing else varies.
"""
import json
import math
import pathlib
import uuid

NAME = "gdn_decode_qk4_v8_d128_k_last"
HERE = pathlib.Path(__file__).resolve().parent
TENSORS = ["q", "k", "v", "state", "A_log", "a", "dt_bias", "b"]
SCALE = 1.0 / math.sqrt(128)
BATCH_COUNTS = [(1, 10), (4, 8), (8, 7), (16, 7), (32, 7), (48, 7), (64, 8)]
# CI: one sequence with scale 0 (the "use 1/sqrt(head_size)" convention) and an odd batch.
CI = [(1, 0.0), (3, SCALE)]


def line(key, batch_size, scale):
    inputs = {name: {"type": "random"} for name in TENSORS}
    inputs["scale"] = {"type": "scalar", "value": scale}
    workload = {
        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"kharness/{NAME}/{key}")),
        "axes": {"batch_size": batch_size},
        "inputs": inputs,
    }
    record = {"definition": NAME, "solution": None, "workload": workload, "evaluation": None}
    return json.dumps(record, separators=(",", ":"))


def main():
    batches = [b for b, count in BATCH_COUNTS for _ in range(count)]
    assert len(batches) == 54
    lines = [line(i, b, SCALE) for i, b in enumerate(batches)]
    (HERE / "workloads.jsonl").write_text("\n".join(lines) + "\n")
    ci = [line(f"ci/{i}", b, s) for i, (b, s) in enumerate(CI)]
    (HERE / "ci-workloads.jsonl").write_text("\n".join(ci) + "\n")


if __name__ == "__main__":
    main()
