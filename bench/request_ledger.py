#!/usr/bin/env python3
"""Where kharness's time went, per workload, from the traces of `kharness eval -o`.

    python3 bench/request_ledger.py TRACES.jsonl [...]

For each file: the mean per workload of the orchestrator's steps
(evaluation.kharness.orchestrator_ms: correctness, timing, recheck, compare,
reference_timing, workload) and of the worker requests behind them
(evaluation.kharness.requests: per worker and kind, the count, the wall ms around
the request, the MB the replies carried, and the worker's own phases, w.*).
"""
import collections
import json
import sys


def summarize(path):
    traces = [json.loads(line) for line in open(path) if line.strip()]
    if not traces:
        return {"file": path, "workloads": 0}
    steps = collections.Counter()
    requests = collections.defaultdict(collections.Counter)
    for t in traces:
        ours = t["evaluation"]["kharness"]
        for step, ms in ours.get("orchestrator_ms", {}).items():
            steps[step] += ms
        for who, kinds in ours.get("requests", {}).items():
            for kind, v in kinds.items():
                row = requests[f"{who}.{kind}"]
                row["count"] += v["count"]
                row["wall_ms"] += v["wall_ms"]
                row["MB"] += v["reply_bytes"] / 1e6
                for phase, ms in v.get("worker_ms", {}).items():
                    row["w." + phase] += ms
    n = len(traces)
    mean = lambda c: {k: round(v / n, 2) for k, v in c.items()}
    return {"file": path, "workloads": n, "steps_ms": mean(steps),
            "requests": {k: mean(c) for k, c in requests.items()}}


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) > 1 else 2
    for path in sys.argv[1:]:
        s = summarize(path)
        print(f"== {s['file']}: {s['workloads']} workloads; mean ms per workload")
        if not s["workloads"]:
            continue
        print("  steps:", s["steps_ms"])
        for kind, row in s["requests"].items():
            print(f"  {kind}:", row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
