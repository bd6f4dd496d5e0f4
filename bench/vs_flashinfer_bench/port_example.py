#!/usr/bin/env python3
"""Ports the shared trace set's tvm-ffi example gemm solution to the kharness ABI.

The kernel body is carried over byte for byte, taken from the example itself at run time
(so this repository holds no copy of it): kernel.h unchanged, and kernel.cu from its
first line up to the TVM FFI binding, without the tvm/ffi includes. Appended is the
kharness entry (bench/solutions/gemm_n4096_k4096_example/kharness_entry.cu), which
checks shapes and dtypes as the binding did and launches the same kernel with the same
grid, block and shared memory, on the stream kharness passes.

    port_example.py EXAMPLE_SOLUTION.json OUT_SOLUTION.json

Prints the SHA-256 of the carried-over body and of the example's same span, which are
equal by construction; run.sh records them in the summary.
"""
import hashlib
import json
import pathlib
import sys

BINDING_MARK = "// TVM FFI binding function"
ENTRY = pathlib.Path(__file__).resolve().parents[1] / "solutions" / "gemm_n4096_k4096_example" / "kharness_entry.cu"


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    example = json.loads(pathlib.Path(sys.argv[1]).read_text())
    sources = {s["path"]: s["content"] for s in example["sources"]}
    kernel = sources["kernel.cu"]
    if BINDING_MARK not in kernel:
        print(f"the example's kernel.cu has no '{BINDING_MARK}' line: not the expected example", file=sys.stderr)
        return 1
    body = kernel[: kernel.index(BINDING_MARK)]
    ported_lines = [line for line in body.splitlines(keepends=True) if not line.startswith("#include <tvm/ffi/")]
    ported_body = "".join(ported_lines)
    # The body minus the tvm-ffi includes, in the example and in the port.
    example_span = "".join(l for l in body.splitlines(keepends=True) if not l.startswith("#include <tvm/ffi/"))
    assert example_span == ported_body
    solution = {
        "name": "example_agent_solution_kharness",
        "definition": example["definition"],
        "author": example.get("author", ""),
        "description": "the shared tvm-ffi example's kernel, ported to the kharness ABI (body unchanged)",
        "spec": {
            "language": "cuda",
            "target_hardware": ["H200"],
            "entry_point": "kernel.cu::gemm_n_4096_k_4096",
            "dependencies": [],
            "destination_passing_style": True,
            "binding": "kharness",
        },
        "sources": [
            {"path": "kernel.h", "content": sources["kernel.h"]},
            {"path": "kernel.cu", "content": ported_body + ENTRY.read_text()},
        ],
    }
    pathlib.Path(sys.argv[2]).write_text(json.dumps(solution, indent=2))
    digest = hashlib.sha256(ported_body.encode()).hexdigest()
    print(json.dumps({"kernel_body_sha256": digest, "example_body_sha256": hashlib.sha256(example_span.encode()).hexdigest(),
                      "kernel_h_sha256": hashlib.sha256(sources["kernel.h"].encode()).hexdigest()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
