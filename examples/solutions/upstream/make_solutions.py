#!/usr/bin/env python3
"""Writes the FlashInfer-Trace solution files of this folder from sources/.

One solution per public definition of the rmsnorm, gemm and contest families: Triton
for rmsnorm and gemm (the kernel template filled with the definition's constants), plain
PyTorch for the five contest operators. Run it after editing sources/; the JSON files
are what `kharness eval` and bench/upstream_sweep.sh read.
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
SOURCES = HERE / "sources"

# Hidden sizes of the public rmsnorm definitions; the two h4096 ones use eps 1e-5, the
# others 1e-6 (each definition's reference says which).
RMSNORM = [128, 512, 1536, 2048, 3072, 4096, 5120, 5376, 7168]
FUSED_RMSNORM = [2048, 3072, 4096, 5120, 5376, 7168]
GEMM = [(128, 2048), (256, 7168), (2048, 4096), (4096, 4096), (4096, 14336), (5120, 2048), (6144, 4096),
        (28672, 4096)]
CONTEST = {
    "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64": "dsa_sparse_attention.py",
    "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64": "dsa_topk_indexer.py",
    "gdn_decode_qk4_v8_d128_k_last": "gdn_decode.py",
    "gdn_prefill_qk4_v8_d128_k_last": "gdn_prefill.py",
    "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048": "moe_fp8_block_scale.py",
}


def fill(template, **values):
    text = (SOURCES / template).read_text()
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def solution(definition, language, description, file, content, dps):
    return {
        "name": f"{definition}_kharness_{language}",
        "definition": definition,
        "author": "kharness",
        "description": description,
        "spec": {
            "language": language,
            "target_hardware": ["H100", "H200"],
            "entry_point": f"{file}::run",
            "dependencies": ["torch", "triton"] if language == "triton" else ["torch"],
            "destination_passing_style": dps,
        },
        "sources": [{"path": file, "content": content}],
    }


def all_solutions():
    for hidden in RMSNORM:
        eps = "1e-5" if hidden == 4096 else "1e-6"
        kernel = fill("rmsnorm_triton.py", hidden=hidden, eps=eps) + fill("rmsnorm_entry.py")
        yield solution(f"rmsnorm_h{hidden}", "triton", f"RMSNorm over {hidden}, one Triton program per row",
                       "kernel.py", kernel, True)
    for hidden in FUSED_RMSNORM:
        eps = "1e-5" if hidden == 4096 else "1e-6"
        kernel = fill("rmsnorm_triton.py", hidden=hidden, eps=eps) + fill("fused_add_rmsnorm_entry.py")
        yield solution(f"fused_add_rmsnorm_h{hidden}", "triton",
                       f"Residual add + RMSNorm over {hidden}, one Triton program per row", "kernel.py", kernel, True)
    for n, k in GEMM:
        yield solution(f"gemm_n{n}_k{k}", "triton", f"C = A @ B.T (N={n}, K={k}), tiled Triton GEMM", "kernel.py",
                       fill("gemm_triton.py", n=n, k=k), True)
    for definition, file in CONTEST.items():
        yield solution(definition, "python", "PyTorch, vectorized from the definition's reference", "main.py",
                       (SOURCES / file).read_text(), False)


def main():
    for s in all_solutions():
        (HERE / f"{s['definition']}.json").write_text(json.dumps(s, indent=2) + "\n")
        print("wrote", s["definition"] + ".json")


if __name__ == "__main__":
    main()
