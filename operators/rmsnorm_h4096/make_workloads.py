#!/usr/bin/env python3
"""Writes workloads.jsonl and ci-workloads.jsonl for rmsnorm_h4096.

The batch sizes are those of the FlashInfer-Trace workloads of this definition
(Llama 3.1 8B, in the same order). The uuids are our own: uuid5 of a fixed name, so a
second run reproduces both files byte for byte. Run from anywhere: python3 make_workloads.py
"""
import json
import pathlib
import uuid

NAME = "rmsnorm_h4096"

# Decode batches (1 to 170 rows) and prefill chunks (8804 to 14509 rows).
BATCH_SIZES = [7, 1, 34, 170, 14418, 11832, 64, 16, 10827, 8804, 63, 79, 14509, 15]

# One row; a few rows; a batch that is not a multiple of any rows-per-block choice.
CI_BATCH_SIZES = [1, 3, 37]


def workload_line(key, batch_size):
    workload = {
        "uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"kharness/{NAME}/{key}")),
        "axes": {"batch_size": batch_size},
        "inputs": {"hidden_states": {"type": "random"}, "weight": {"type": "random"}},
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
