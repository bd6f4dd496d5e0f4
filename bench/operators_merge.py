#!/usr/bin/env python3
"""Merges the traces of several device calls into one file per definition, for
operators_summary.py, when no single call could sweep every workload.

Traces come from `kharness eval -o` files (op_<definition>.jsonl), read in the order
given: for a workload seen in several calls the last call's trace is kept (a later call
re-runs what an earlier one got wrong or did not reach). Each trace keeps the call it
came from (kharness.merged_from). A definition with workloads still missing is marked
partial, with the count, against operators/<definition>/workloads.jsonl.

    python3 bench/operators_merge.py OUT_DIR CALL_DIR... [--operators operators]
"""
import argparse
import glob
import json
import os
import sys


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("calls", nargs="+", help="folders holding op_<definition>.jsonl, oldest first")
    p.add_argument("--operators", default=os.path.join(os.path.dirname(__file__), "..", "operators"))
    a = p.parse_args()
    merged = {}  # definition -> uuid -> trace
    for call in a.calls:
        for path in sorted(glob.glob(os.path.join(call, "**", "op_*.jsonl"), recursive=True)):
            with open(path) as f:
                for line in f:
                    if not line.strip():
                        continue
                    trace = json.loads(line)
                    ours = trace.setdefault("evaluation", {}).setdefault("kharness", {})
                    ours["merged_from"] = os.path.relpath(path, call) if len(a.calls) == 1 else f"{call}: {os.path.relpath(path, call)}"
                    merged.setdefault(trace["definition"], {})[trace["workload"]["uuid"]] = trace
    os.makedirs(a.out, exist_ok=True)
    for definition, by_uuid in sorted(merged.items()):
        with open(os.path.join(a.operators, definition, "workloads.jsonl")) as f:
            order = [json.loads(line)["workload"]["uuid"] for line in f if line.strip()]
        traces = [by_uuid[u] for u in order if u in by_uuid]
        missing = len(order) - len(traces)
        with open(os.path.join(a.out, f"op_{definition}.json"), "w") as f:
            json.dump({"definition": definition, "solution": traces[0].get("solution") if traces else None,
                       "traces": traces, "partial": missing > 0, "missing": missing}, f, indent=1)
        print(f"{definition}: {len(traces)} of {len(order)} workloads" + (f", {missing} missing" if missing else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
