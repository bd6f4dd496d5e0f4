#!/usr/bin/env python3
"""Writes workloads.jsonl and ci-workloads.jsonl for the DeepSeek-V3 FP8 MoE operator.

The 19 (seq_len, local_expert_offset) pairs are the contest's, in the contest's order;
every tensor input is {"type": "random"} (src/eval/inputs/moe_inputs.cpp makes valid
data), routed_scaling_factor is DeepSeek-V3's 2.5. UUIDs are uuid5 of fixed names, so
running this again writes the same files.
"""
import json
import os
import uuid

NAME = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"
TENSORS = ["routing_logits", "routing_bias", "hidden_states", "hidden_states_scale", "gemm1_weights",
           "gemm1_weights_scale", "gemm2_weights", "gemm2_weights_scale"]
CONTEST = [(7, 192), (1, 32), (32, 32), (80, 96), (901, 96), (16, 224), (15, 32), (14, 0), (14107, 32),
           (11948, 128), (62, 96), (59, 160), (58, 64), (57, 96), (56, 64), (55, 128), (54, 128), (53, 32),
           (52, 160)]
# Small enough for the single-threaded CPU reference (which computes only the experts
# that received tokens), large enough that some token reaches a local expert; the
# offsets cover the first and the last group.
CI = [(3, 0), (5, 224)]


def line(uuid_name, seq_len, offset):
    inputs = {name: {"type": "random"} for name in TENSORS}
    inputs["local_expert_offset"] = {"type": "scalar", "value": offset}
    inputs["routed_scaling_factor"] = {"type": "scalar", "value": 2.5}
    workload = {"uuid": str(uuid.uuid5(uuid.NAMESPACE_URL, uuid_name)), "axes": {"seq_len": seq_len},
                "inputs": inputs}
    return json.dumps({"definition": NAME, "solution": None, "workload": workload, "evaluation": None},
                      separators=(",", ":"))


def write(path, rows, prefix):
    with open(path, "w") as f:
        for i, (seq_len, offset) in enumerate(rows):
            f.write(line(f"kharness/{NAME}/{prefix}{i}", seq_len, offset) + "\n")


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    write(os.path.join(here, "workloads.jsonl"), CONTEST, "")
    write(os.path.join(here, "ci-workloads.jsonl"), CI, "ci/")
