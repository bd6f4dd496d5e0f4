"""Loads a trace set with flashinfer-bench's own loader (TraceSet.from_path) and prints
what it holds as JSON: exit 0 when the whole set loads, 1 (with the loader's error)
when it refuses it.

Usage: python3 flashinfer_bench_load.py SITE_DIR SET_DIR

SITE_DIR holds flashinfer_bench/ and pydantic (scripts/setup_flashinfer_bench.sh). Only
flashinfer_bench.data is imported: the package's __init__ pulls in its benchmark runner
(torch, flashinfer), which loading a set does not use. trace_set.py imports torch and
safetensors.torch for blob handling, which from_path never calls; where torch is not
installed they are stood in by empty modules.
"""

import importlib.util
import json
import sys
import types
from pathlib import Path


def import_data_package(site: Path):
    sys.path.insert(0, str(site))
    package = types.ModuleType("flashinfer_bench")
    package.__path__ = [str(site / "flashinfer_bench")]
    sys.modules["flashinfer_bench"] = package
    if importlib.util.find_spec("torch") is None:
        for name in ("torch", "safetensors", "safetensors.torch"):
            sys.modules.setdefault(name, types.ModuleType(name))
    from flashinfer_bench.data.trace_set import TraceSet  # noqa: E402

    return TraceSet


def main() -> int:
    site, root = Path(sys.argv[1]), Path(sys.argv[2])
    TraceSet = import_data_package(site)
    try:
        ts = TraceSet.from_path(str(root))
    except Exception as e:  # the loader's refusal is the answer, printed for the test
        print(json.dumps({"loaded": False, "error": f"{type(e).__name__}: {e}"}))
        return 1
    traces = [t for ts_list in ts.traces.values() for t in ts_list]
    solutions = [s for s_list in ts.solutions.values() for s in s_list]
    out = {
        "loaded": True,
        "definitions": sorted(ts.definitions),
        "solutions": sorted(s.name for s in solutions),
        "bindings": sorted({str(s.spec.binding.value if s.spec.binding else None) for s in solutions}),
        "workloads": sum(len(w) for w in ts.workloads.values()),
        "traces": len(traces),
        "statuses": sorted({t.evaluation.status.value for t in traces}),
        "logs": sorted({t.evaluation.log.split(":")[0] for t in traces if t.evaluation.log}),
        "nan_errors": sum(
            1
            for t in traces
            if t.evaluation.correctness is not None
            and t.evaluation.correctness.max_relative_error != t.evaluation.correctness.max_relative_error
        ),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
