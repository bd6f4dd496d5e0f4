#!/usr/bin/env python3
"""Summarises the side-by-side run of kharness and flashinfer-bench (run.sh).

    summary.py --times times.json --kharness kharness.jsonl --fib-persistent DIR
               --fib-isolated DIR [--port port.json] --out summary.json

times.json holds the wall seconds run.sh measured: kharness_cold_s, kharness_s,
kharness_reference_timed_s, fib_cold_s, fib_persistent_s, fib_isolated_s, and
fib_isolated_workloads. The FlashInfer-Trace lines come from kharness's -o file and
from the traces/ folders flashinfer-bench wrote under each trace set.

floor_s is the GPU time the official protocol itself needs, from kharness's measured
latencies: per workload, (correctness trials + trials x (warm-up + iterations)) calls of
the candidate and as many of the reference, plus one L2 flush (a write of twice the L2
at the measured copy bandwidth) before each warm-up and timed call of both.
"""
import argparse
import glob
import json
import os
import statistics
import sys


def read_jsonl(paths):
    lines = []
    for path in paths:
        with open(path) as f:
            lines.extend(json.loads(line) for line in f if line.strip())
    return lines


def by_workload(traces):
    """uuid -> (status, latency_ms) of the last trace of each workload."""
    out = {}
    for t in traces:
        ev = t.get("evaluation") or {}
        perf = ev.get("performance") or {}
        out[t["workload"]["uuid"]] = (ev.get("status"), perf.get("latency_ms"))
    return out


def floor_seconds(kharness_traces):
    total = 0.0
    for t in kharness_traces:
        ours = (t.get("evaluation") or {}).get("kharness", {})
        protocol = ours.get("protocol", {})
        cand = (ours.get("latency") or {}).get("latency_ms")
        ref = (ours.get("reference_latency") or {}).get("latency_ms")
        if cand is None or ref is None:
            continue
        timed = protocol.get("trials", 3) * (protocol.get("warmup", 10) + protocol.get("iterations", 50))
        checks = protocol.get("correctness_trials", 3)
        bandwidth = ((ours.get("speed_of_light") or {}).get("device_peaks") or {}).get("bandwidth_bytes_per_s")
        l2 = (ours.get("device") or {}).get("l2_bytes", 0)
        flush_ms = 2 * l2 / bandwidth * 1e3 if bandwidth else 0.0
        total += (checks + timed) * (cand + ref) + 2 * timed * flush_ms
    return total / 1e3


def fib_traces(folder):
    return read_jsonl(sorted(glob.glob(os.path.join(folder, "traces", "**", "*.jsonl"), recursive=True)))


def agreement(kh, fib):
    """Verdicts on the common workloads, and |kharness / flashinfer-bench - 1| of latencies."""
    common = sorted(set(kh) & set(fib))
    same = all(kh[u][0] == fib[u][0] for u in common) and bool(common)
    ratios = [kh[u][1] / fib[u][1] for u in common if kh[u][1] and fib[u][1]]
    dev = [abs(r - 1) for r in ratios]
    return {
        "workloads": len(common),
        "verdicts_agree": same,
        "disagreements": [{"uuid": u, "kharness": kh[u][0], "flashinfer_bench": fib[u][0]}
                          for u in common if kh[u][0] != fib[u][0]],
        "latency_ratio_median": statistics.median(ratios) if ratios else None,
        "latency_abs_deviation_median": statistics.median(dev) if dev else None,
        "latency_abs_deviation_max": max(dev) if dev else None,
        "latency_within_2pct": sum(d <= 0.02 for d in dev),
    }


def summarise(times, kharness_traces, persistent, isolated, port=None):
    kh = by_workload(kharness_traces)
    floor = floor_seconds(kharness_traces)
    vs_persistent = agreement(kh, by_workload(persistent))
    vs_isolated = agreement(kh, by_workload(isolated))
    n = len(kh)
    iso_n = times.get("fib_isolated_workloads") or vs_isolated["workloads"]
    iso_all = times["fib_isolated_s"] / iso_n * n if iso_n else None
    s = {
        "workloads": n,
        "kharness_s": times["kharness_s"],
        "kharness_cold_s": times.get("kharness_cold_s"),
        "kharness_reference_timed_s": times.get("kharness_reference_timed_s"),
        "fib_persistent_s": times["fib_persistent_s"],
        "fib_cold_s": times.get("fib_cold_s"),
        "fib_isolated_s": times["fib_isolated_s"],
        "fib_isolated_workloads": iso_n,
        "fib_isolated_subset": iso_n < n,
        "fib_isolated_s_all_estimate": iso_all,
        "floor_s": floor,
        "verdicts_agree": vs_persistent["verdicts_agree"] and vs_isolated["verdicts_agree"]
        and vs_persistent["workloads"] == n,
        "vs_persistent": vs_persistent,
        "vs_isolated": vs_isolated,
        "targets": {
            "kharness_le_third_of_persistent": times["kharness_s"] <= times["fib_persistent_s"] / 3,
            "kharness_le_thirtieth_of_isolated": iso_all is not None and times["kharness_s"] <= iso_all / 30,
            "kharness_le_twice_floor": times["kharness_s"] <= 2 * floor,
            "latencies_within_2pct": vs_persistent["latency_abs_deviation_median"] is not None
            and vs_persistent["latency_abs_deviation_median"] <= 0.02,
        },
        "notes": [],
    }
    if not times.get("kharness_complete", True):
        s["kharness_complete"] = False
        s["verdicts_agree"] = False
        s["notes"].append(f"kharness's timed run was cut by its time limit after {n} workloads: kharness_s is a "
                          "lower bound, and verdicts are compared over those workloads only")
    if s["fib_isolated_subset"]:
        s["notes"].append(f"the isolated runner ran {iso_n} of the {n} workloads (time budget); "
                          "fib_isolated_s_all_estimate scales its time to all of them")
    s["notes"].append("kharness_s: builds and reference latencies cached; kharness_reference_timed_s: builds "
                      "cached, reference timed again (--remeasure-reference), as flashinfer-bench times its "
                      "baseline every run; *_cold_s: the first run, compiling")
    if port:
        s["port"] = port
    return s


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--times", required=True)
    p.add_argument("--kharness", required=True)
    p.add_argument("--fib-persistent", required=True)
    p.add_argument("--fib-isolated", required=True)
    p.add_argument("--port")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    with open(a.times) as f:
        times = json.load(f)
    port = None
    if a.port and os.path.exists(a.port):
        with open(a.port) as f:
            port = json.load(f)
    s = summarise(times, read_jsonl([a.kharness]), fib_traces(a.fib_persistent), fib_traces(a.fib_isolated), port)
    with open(a.out, "w") as f:
        json.dump(s, f, indent=2)
    json.dump(s, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
