#!/usr/bin/env python3
"""Writes the FlashInfer 0.6.4 baseline solutions of this folder: <definition>.json from
<definition>.py, one per contest operator that FlashInfer can run on Hopper (see README.md).

Python solutions (language python, destination_passing_style false): run() takes the
definition's inputs in order and returns the outputs; each calls FlashInfer, which must be
importable by the python worker (run.sh installs the wheels and sets PYTHONPATH).
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent

SOLUTIONS = {
    "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64":
        "COMPOSITE: float32 PyTorch scores (fp8 paged keys, ReLU, head-weighted sum) + FlashInfer 0.6.4 "
        "top_k_page_table_transform (radix/filtered top-k fused with the page-table mapping)",
    "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64":
        "FlashInfer 0.6.4 BatchMLAPagedAttentionWrapper, backend fa3 (SM90), page size 1 over the flattened "
        "caches, kv_indices = each token's valid sparse indices (compacted on the host side), base-2 lse",
    "gdn_prefill_qk4_v8_d128_k_last":
        "FlashInfer 0.6.4 chunk_gated_delta_rule (SM90 chunked delta-rule kernel), gates computed in PyTorch",
    "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048":
        "FlashInfer 0.6.4 cutlass_fused_moe (SM90, use_deepseek_fp8_block_scale) after DeepSeek-V3 routing in "
        "PyTorch; activations dequantised to bf16 (the kernel requantises them 1x128)",
}


def solution(definition, description):
    file = f"{definition}.py"
    return {
        "name": f"{definition}_flashinfer_0_6_4",
        "definition": definition,
        "author": "flashinfer-0.6.4",
        "description": description,
        "spec": {
            "language": "python",
            "target_hardware": ["H100", "H200"],
            "entry_point": f"{file}::run",
            "dependencies": ["torch", "flashinfer"],
            "destination_passing_style": False,
        },
        "sources": [{"path": file, "content": (HERE / file).read_text()}],
    }


def main():
    for definition, description in SOLUTIONS.items():
        (HERE / f"{definition}.json").write_text(json.dumps(solution(definition, description), indent=2) + "\n")
        print("wrote", definition + ".json")


if __name__ == "__main__":
    main()
