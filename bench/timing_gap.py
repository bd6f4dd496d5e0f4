#!/usr/bin/env python3
"""Reads bench/timing_gap.sh's outputs and states, per case, kharness's per-call span next
to ncu's kernel time, and (from an nsys timeline, where there is one) what lies inside
each timed call's span: kernels, memsets, copies and idle gaps.

    timing_gap.py OUT_DIR --out timing_gap.json
"""
import argparse
import csv
import glob
import json
import os
import statistics


def eval_latency(path):
    if not os.path.exists(path):
        return None
    lines = [json.loads(l) for l in open(path) if l.strip()]
    if not lines:
        return None
    ours = lines[-1]["evaluation"].get("kharness", {})
    lat = ours.get("latency") or {}
    return {"status": lines[-1]["evaluation"]["status"], "latency_us": lat.get("latency_ms", 0) * 1e3,
            "samples_us": {k: v * 1e3 for k, v in (lat.get("samples") or {}).items() if k.endswith("_ms")},
            "timer": lat.get("timer"), "mean_sm_clock_mhz": lat.get("mean_sm_clock_mhz")}


def ncu_kernels(path):
    """Rows of ncu's raw CSV page (a header row, a units row, then one row per kernel).
    The profiled command's own output precedes them in the file: the page starts at the
    header row, whose first column is "ID"."""
    if not os.path.exists(path):
        return None
    rows = [r for r in csv.reader(l for l in open(path) if not l.startswith("==")) if r]
    start = next((i for i, r in enumerate(rows) if r[0] == "ID"), None)
    if start is None or len(rows) < start + 2:
        return []
    rows = rows[start:]
    head, units = rows[0], rows[1]
    out = []
    for r in rows[2:]:
        if len(r) < len(head):  # a line the script printed after the page, not a kernel
            continue
        rec = dict(zip(head, r))
        unit = dict(zip(head, units))

        def value(metric, scale_to):
            raw = rec.get(metric, "").replace(",", "")
            try:
                v = float(raw)
            except ValueError:
                return None
            factor = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3, "second": 1e6,
                      "ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6,
                      "hz": 1e-6, "khz": 1e-3, "mhz": 1.0, "ghz": 1e3}.get(unit.get(metric, "").lower(), 1.0)
            return v * factor if scale_to else v

        out.append({"kernel": rec.get("Kernel Name", ""), "gpu_time_us": value("gpu__time_duration.sum", True),
                    "sm_clock_mhz": value("sm__cycles_elapsed.avg.per_second", True),
                    "grid": rec.get("launch__grid_size"), "block": rec.get("launch__block_size")})
    return out


def timeline(path):
    """Timed calls rebuilt from nsys's cuda_gpu_trace: the L2 flush (the largest memset,
    on the harness's stream) separates calls; a call's span covers every other activity
    between two flushes, on any stream but the flush's."""
    if not os.path.exists(path):
        return None
    rows = list(csv.DictReader(open(path)))
    if not rows:
        return None
    col = lambda *names: next((k for k in rows[0] if any(n in k for n in names)), None)
    start_c, dur_c, name_c, strm_c = col("Start"), col("Duration"), col("Name"), col("Strm", "Stream")
    bytes_c = col("Bytes")
    acts = []
    for r in rows:
        try:
            acts.append({"start": float(r[start_c]), "end": float(r[start_c]) + float(r[dur_c]), "name": r[name_c],
                         "stream": r[strm_c], "bytes": float(r[bytes_c] or 0) if bytes_c else 0.0})
        except (TypeError, ValueError):
            continue
    acts.sort(key=lambda a: a["start"])
    memsets = [a for a in acts if "memset" in a["name"].lower()]
    if not memsets:
        return {"calls": 0}
    flush_bytes = max(a["bytes"] for a in memsets)
    flushes = [a for a in memsets if a["bytes"] == flush_bytes]
    harness = flushes[0]["stream"]
    calls = []
    for f, g in zip(flushes, flushes[1:] + [None]):
        inside = [a for a in acts if a["start"] >= f["end"] and (g is None or a["start"] < g["start"])
                  and a["stream"] != harness]
        if not inside:
            continue
        begin, end = min(a["start"] for a in inside), max(a["end"] for a in inside)
        busy, cursor = 0.0, begin
        for a in inside:
            s, e = max(a["start"], cursor), a["end"]
            if e > s:
                busy += e - s
                cursor = e
        calls.append({"span_us": (end - begin) / 1e3, "busy_us": busy / 1e3, "gap_us": (end - begin - busy) / 1e3,
                      "kernels": sum("memset" not in a["name"].lower() and "memcpy" not in a["name"].lower()
                                     for a in inside),
                      "memsets": sum("memset" in a["name"].lower() for a in inside),
                      "copies": sum("memcpy" in a["name"].lower() for a in inside),
                      "kernel_us": sum((a["end"] - a["start"]) / 1e3 for a in inside
                                       if "memset" not in a["name"].lower() and "memcpy" not in a["name"].lower())})
    med = lambda k: statistics.median(c[k] for c in calls) if calls else None
    return {"calls": len(calls), "span_us_median": med("span_us"), "kernel_us_median": med("kernel_us"),
            "gap_us_median": med("gap_us"), "kernels_per_call": med("kernels"), "memsets_per_call": med("memsets"),
            "copies_per_call": med("copies")}


def case(dir_):
    flush, noflush = ncu_kernels(os.path.join(dir_, "ncu_flush.csv")), ncu_kernels(os.path.join(dir_, "ncu_noflush.csv"))
    total = lambda ks: sum(k["gpu_time_us"] or 0 for k in ks) if ks else None
    out = {"kharness": eval_latency(os.path.join(dir_, "eval.jsonl")),
           "ncu_cache_flushed": {"kernels": flush, "gpu_time_us_sum": total(flush)},
           "ncu_cache_kept": {"kernels": noflush, "gpu_time_us_sum": total(noflush)},
           "nsys": timeline(os.path.join(dir_, "nsys_gpu_trace.csv"))}
    k = (out["kharness"] or {}).get("latency_us")
    n = out["ncu_cache_flushed"]["gpu_time_us_sum"]
    out["kharness_over_ncu"] = k / n - 1 if k and n else None
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("out_dir")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    result = {os.path.basename(d): case(d) for d in sorted(glob.glob(os.path.join(a.out_dir, "*"))) if os.path.isdir(d)}
    json.dump(result, open(a.out, "w"), indent=2)
    for name, c in result.items():
        print(name, json.dumps({"kharness_us": (c["kharness"] or {}).get("latency_us"),
                                "ncu_us": c["ncu_cache_flushed"]["gpu_time_us_sum"],
                                "ncu_warm_us": c["ncu_cache_kept"]["gpu_time_us_sum"],
                                "kharness_over_ncu": c["kharness_over_ncu"], "nsys": c["nsys"]}))


if __name__ == "__main__":
    main()
