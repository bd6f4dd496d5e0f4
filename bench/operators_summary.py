#!/usr/bin/env python3
"""Summarises `kharness eval --json` outputs of operator baselines.

For every workload: status, baseline and reference latency, the speed-of-light floor
(from the device's measured peaks) and the fraction of it each reaches. Per operator:
workloads passed, and the geometric means of the speedup and the fractions.

    python3 bench/operators_summary.py OUT/op_*.json --json S.json --markdown S.md
"""
import argparse
import json
import math
import os
import sys


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def workload_row(trace):
    ev = trace.get("evaluation") or {}
    ours = ev.get("kharness", {})
    perf = ev.get("performance") or {}
    sol = ours.get("speed_of_light", {})
    floor = sol.get("floor_ms")
    base = perf.get("latency_ms")
    ref = perf.get("reference_latency_ms") or None
    return {
        "uuid": trace["workload"]["uuid"],
        "axes": trace["workload"].get("axes", {}),
        "status": ev.get("status"),
        "baseline_ms": base,
        "reference_ms": ref,
        "speedup_over_reference": (ref / base) if base and ref else None,
        "floor_ms": floor,
        "bound": sol.get("bound"),
        "sol_fraction_baseline": (floor / base) if floor and base else None,
        "sol_fraction_reference": (floor / ref) if floor and ref else None,
        "log": (ev.get("log") or "")[:300],
    }


def streamed(path):
    """The traces `eval -o` wrote one by one, for a run cut short before its --json."""
    lines = path[:-len(".json")] + ".jsonl" if path.endswith(".json") else None
    if not lines or not os.path.exists(lines):
        return None
    with open(lines) as f:
        traces = [json.loads(line) for line in f if line.strip()]
    if not traces:
        return None
    return {"definition": traces[0].get("definition"), "solution": traces[0].get("solution"),
            "traces": traces, "partial": True}


def summarise(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        data = streamed(path)
        if data is None:
            return {"file": path, "error": f"unreadable: {e}"}
    rows = [workload_row(t) for t in data.get("traces", [])]
    passed = sum(1 for r in rows if r["status"] == "PASSED")
    return {
        "definition": data.get("definition"),
        "solution": data.get("solution"),
        "device": data.get("device", {}).get("name"),
        "device_peaks": data.get("device_peaks"),
        "workloads": len(rows),
        "partial": data.get("partial", False),  # cut short: only the workloads it finished
        "missing": data.get("missing"),  # workloads no call reached (operators_merge.py)
        "passed": passed,
        "geomean_speedup_over_reference": geomean([r["speedup_over_reference"] for r in rows]),
        "geomean_sol_fraction_baseline": geomean([r["sol_fraction_baseline"] for r in rows]),
        "geomean_sol_fraction_reference": geomean([r["sol_fraction_reference"] for r in rows]),
        "rows": rows,
    }


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def markdown(ops):
    lines = ["| definition | passed | speedup vs reference (geomean) | SOL baseline | SOL reference |",
             "|---|---|---|---|---|"]
    for o in ops:
        if "error" in o:
            lines.append(f"| {o['file']} | {o['error']} | | | |")
            continue
        cut = f" ({o['missing']} not run)" if o.get("missing") else " (cut short)" if o.get("partial") else ""
        lines.append(f"| {o['definition']} | {o['passed']}/{o['workloads']}{cut} | "
                     f"{fmt(o['geomean_speedup_over_reference'], '.2f')}x | "
                     f"{fmt(o['geomean_sol_fraction_baseline'] and 100 * o['geomean_sol_fraction_baseline'], '.1f')}% | "
                     f"{fmt(o['geomean_sol_fraction_reference'] and 100 * o['geomean_sol_fraction_reference'], '.1f')}% |")
    for o in ops:
        if "error" in o:
            continue
        lines += ["", f"## {o['definition']}", "",
                  "| workload | axes | status | baseline ms | reference ms | floor ms | bound | SOL base | SOL ref |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for r in o["rows"]:
            axes = " ".join(f"{k}={v}" for k, v in r["axes"].items())
            lines.append(
                f"| {r['uuid'][:8]} | {axes} | {r['status']} | {fmt(r['baseline_ms'], '.4f')} | "
                f"{fmt(r['reference_ms'], '.4f')} | {fmt(r['floor_ms'], '.4f')} | {r['bound'] or '-'} | "
                f"{fmt(r['sol_fraction_baseline'] and 100 * r['sol_fraction_baseline'], '.1f')}% | "
                f"{fmt(r['sol_fraction_reference'] and 100 * r['sol_fraction_reference'], '.1f')}% |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+")
    p.add_argument("--json", required=True)
    p.add_argument("--markdown", required=True)
    a = p.parse_args()
    ops = [summarise(f) for f in a.files]
    with open(a.json, "w") as f:
        json.dump({"operators": ops}, f, indent=1)
    with open(a.markdown, "w") as f:
        f.write(markdown(ops))
    return 0 if all(o.get("passed") == o.get("workloads") and not o.get("partial") and "error" not in o
                    for o in ops) else 1


if __name__ == "__main__":
    sys.exit(main())
