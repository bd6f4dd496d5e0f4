#!/usr/bin/env python3
"""Wraps a definition's PyTorch reference (its `reference` field) into a Python solution, so
that `kharness eval` can time the reference itself as a baseline, under the same protocol
as any candidate.

    python3 bench/loop/reference_solution.py DEFINITION_JSON > solution.json

Give the contest's definition file (the FlashInfer-Trace set's) to time the contest's
reference; kharness's own copy in operators/<name>/definition.json carries a rewritten,
vectorised reference.
"""
import json
import sys


def reference_solution(definition: dict, origin: str) -> dict:
    code = definition.get("reference")
    if not isinstance(code, str) or "def run(" not in code:
        raise ValueError(f"{origin}: field 'reference' holds no `def run(...)`")
    return {
        "name": f"{definition['name']}_pytorch_reference",
        "definition": definition["name"],
        "author": "flashinfer-trace",
        "description": f"the definition's PyTorch reference, from {origin}",
        "spec": {
            "language": "python",
            "target_hardware": ["H100", "H200"],
            "entry_point": "reference.py::run",
            "dependencies": ["torch"],
            "destination_passing_style": False,
        },
        "sources": [{"path": "reference.py", "content": code}],
    }


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) == 2 else 2
    path = sys.argv[1]
    try:
        with open(path) as f:
            solution = reference_solution(json.load(f), path)
    except (OSError, ValueError, KeyError) as error:
        print(f"reference_solution.py: {error}", file=sys.stderr)
        return 1
    json.dump(solution, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
