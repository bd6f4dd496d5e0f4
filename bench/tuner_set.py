#!/usr/bin/env python3
"""Writes a small FlashInfer-Trace set for a tuner run on the GPU: an operator's
definition and a few of its contest workloads, picked at fixed quantiles of their cost
(the product of the var axes), so that a round of `kharness optimize` evaluates each
candidate in seconds while still spanning small, middle and large shapes.

    python3 bench/tuner_set.py OUT_DIR DEFINITION [--quantiles 0.2 0.6 0.9] [--latencies TRACES]

With --latencies (a JSONL trace file, gzipped or not: an earlier sweep of the baseline),
the cost is the measured latency of each workload instead, where the product of the axes
says little about the time: GDN prefill's long single sequences have a small product and
take the longest. Workloads without a passed trace there rank after the others.
"""
import argparse
import gzip
import json
import math
import os
import sys


def cost(workload, var_axes):
    return math.prod(max(1, int(workload["axes"].get(a, 1))) for a in var_axes)


def measured_latencies(path):
    """Latency (ms) of each workload uuid passed in the trace file."""
    opener = gzip.open if path.endswith(".gz") else open
    out = {}
    with opener(path, "rt") as f:
        for line in f:
            if not line.strip():
                continue
            t = json.loads(line)
            ev = t.get("evaluation") or {}
            if ev.get("status") == "PASSED":
                out[t["workload"]["uuid"]] = ev["performance"]["latency_ms"]
    return out


def rank(lines, var_axes, latencies=None):
    """The workload lines by cost, cheapest first: measured latency when given, else the
    product of the var axes; ties and unmeasured workloads by the axes, then the uuid."""
    def key(line):
        w = line["workload"]
        measured = (latencies or {}).get(w["uuid"])
        return (0 if measured is not None else 1, measured or 0.0, cost(w, var_axes), w["uuid"])
    return sorted(lines, key=key)


def pick(ranked, quantiles):
    picked = []
    for q in quantiles:
        line = ranked[min(len(ranked) - 1, int(q * (len(ranked) - 1) + 0.5))]
        if line not in picked:
            picked.append(line)
    return picked


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("definition")
    p.add_argument("--operators", default=os.path.join(os.path.dirname(__file__), "..", "operators"))
    p.add_argument("--quantiles", type=float, nargs="+", default=[0.2, 0.6, 0.9])
    p.add_argument("--latencies", help="JSONL traces of an earlier sweep: rank by measured latency")
    a = p.parse_args()
    folder = os.path.join(a.operators, a.definition)
    with open(os.path.join(folder, "definition.json")) as f:
        definition = json.load(f)
    var_axes = [n for n, ax in definition["axes"].items() if ax.get("type") == "var"]
    with open(os.path.join(folder, "workloads.jsonl")) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    try:
        latencies = measured_latencies(a.latencies) if a.latencies else None
    except (OSError, ValueError, KeyError) as error:
        p.error(f"{a.latencies}: {error}")
    picked = pick(rank(lines, var_axes, latencies), a.quantiles)
    op_type = definition.get("op_type", "op")
    os.makedirs(os.path.join(a.out, "definitions", op_type), exist_ok=True)
    os.makedirs(os.path.join(a.out, "workloads", op_type), exist_ok=True)
    with open(os.path.join(a.out, "definitions", op_type, a.definition + ".json"), "w") as f:
        json.dump(definition, f, indent=1)
    with open(os.path.join(a.out, "workloads", op_type, a.definition + ".jsonl"), "w") as f:
        for line in picked:
            f.write(json.dumps(line) + "\n")
    for line in picked:
        print(a.definition, line["workload"]["uuid"][:8], line["workload"]["axes"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
