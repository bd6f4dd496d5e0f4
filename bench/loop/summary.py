#!/usr/bin/env python3
"""The loop's results per contest operator, from the traces of one or more device calls
of bench/loop/session.sh (and bench/loop/flashinfer/run.sh):

    python3 bench/loop/summary.py CALL_DIR... --out summary.json [--markdown summary.md] [--rediagnose KHARNESS]

Each CALL_DIR may hold, per definition D: baseline_D.jsonl (kharness's CUDA baseline),
pytorch_D.jsonl (the contest's PyTorch reference), final_D.jsonl (the loop's promoted
solution) or shipped_D.jsonl (the solution D ships, operators/D/loop/shipped), loop_D.json (kharness optimize --json), profile_D/profile.json (its regimes)
and flashinfer_D.jsonl or flashinfer/D.jsonl (FlashInfer's kernel where one runs:
bench/loop/flashinfer/run.sh). A later CALL_DIR's file
replaces an earlier one's. The promoted solution is the last call's shipped_D or final_D,
or the baseline's when the loop promoted nothing. Each baseline says whether it was
measured in the same call as that solution (`same_call`).

With --rediagnose, each profile.json is diagnosed again with that binary's rules (`kharness
profile --rediagnose`): the measured evidence as stored, the regimes' bottleneck reasons anew.

Per definition the summary holds `mean_ms` and `geomean_ms` over its passed workloads,
`workloads`, `passed`, the speed-of-light fraction per regime (the regimes of
`kharness profile`; a regime's fraction is the median of its members', each the
floor, launch included, over the measured latency) and `sol_memory_bound`, the lowest
of them over the regimes whose members are mostly memory-bound (null when none is),
`floor_mean_ms`, the mean of the workloads' floors (the least mean latency the device
allows: where it is above the B200 mean, `target.reachable` is false), and
per baseline its mean and geomean and the speedups over it on the workloads both passed:
the ratio of the means, and the geometric mean of the per-workload ratios.
"""
import argparse
import gzip
import json
import math
import os
import statistics
import subprocess
import sys

# The report's agent-assisted means on a B200 (issue 20), in ms.
B200_MEAN_MS = {
    "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048": 0.286,
    "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64": 0.0069,
    "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64": 0.0112,
    "gdn_decode_qk4_v8_d128_k_last": 0.0062,
    "gdn_prefill_qk4_v8_d128_k_last": 0.052,
}
# Operators whose memory-bound regimes must reach this fraction of the speed of light.
SOL_TARGET = {"gdn_decode_qk4_v8_d128_k_last": 0.7, "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64": 0.7,
              "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64": 0.7}
BASELINES = (("kharness_baseline", "baseline"), ("pytorch_reference", "pytorch"), ("flashinfer", "flashinfer"))


def read_traces(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return {t["workload"]["uuid"]: t for t in (json.loads(line) for line in f if line.strip())}


def find(dirs, *names):
    """The last call's file of one of those names (plain or gzipped; the first name where a
    call holds several), or None."""
    for d in reversed(dirs):
        for name in names:
            for candidate in (os.path.join(d, name), os.path.join(d, name + ".gz")):
                if os.path.exists(candidate):
                    return candidate
    return None


def call_of(path):
    """The call folder a file of find() lies in (flashinfer/ is part of its call)."""
    folder = os.path.dirname(os.path.abspath(path))
    return os.path.dirname(folder) if os.path.basename(folder) == "flashinfer" else folder


def latency(trace):
    ev = trace["evaluation"]
    return ev["performance"]["latency_ms"] if ev["status"] == "PASSED" else None


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def stats(traces):
    lat = [x for x in (latency(t) for t in traces.values()) if x]
    return {"workloads": len(traces), "passed": len(lat), "mean_ms": statistics.fmean(lat) if lat else None,
            "geomean_ms": geomean(lat)}


def speedups(base, best):
    both = [(latency(base[u]), latency(best[u])) for u in base if u in best]
    both = [(b, s) for b, s in both if b and s]
    if not both:
        return {"common_workloads": 0}
    return {"common_workloads": len(both),
            "speedup_of_means": statistics.fmean(b for b, _ in both) / statistics.fmean(s for _, s in both),
            "speedup_geomean": geomean([b / s for b, s in both])}


def regimes(profile, best):
    rows = []
    for r in profile.get("regimes", []):
        members = [best[u] for u in r.get("members", []) if u in best and latency(best[u])]
        sols = [t["evaluation"]["kharness"]["speed_of_light"] for t in members
                if t["evaluation"].get("kharness", {}).get("speed_of_light")]
        if not sols:
            continue
        memory = sum(s.get("bound") == "memory" for s in sols)
        rows.append({"name": r["name"], "axes": r["axes"], "workloads": len(members),
                     "bound": "memory" if memory * 2 > len(sols) else "compute",
                     "sol_fraction": statistics.median(s["fraction"] for s in sols),
                     "sol_fraction_min": min(s["fraction"] for s in sols),
                     "mean_ms": statistics.fmean(latency(t) for t in members),
                     "bottleneck": r.get("bottleneck"), "bottleneck_reason": r.get("bottleneck_reason")})
    return rows


def floor_mean(traces):
    """The mean over the workloads of their speed-of-light floors on the device that ran them:
    the least mean latency any kernel could reach there (None when a workload has no floor)."""
    floors = [t["evaluation"].get("kharness", {}).get("speed_of_light", {}).get("floor_ms") for t in traces.values()]
    return statistics.fmean(floors) if floors and all(f is not None for f in floors) else None


def loop_record(path):
    if not path:
        return None
    with open(path) as f:
        loop = json.load(f)
    kinds = [d["kind"] for d in loop.get("decisions", [])]
    return {"loop_id": loop.get("loop_id"), "best": loop.get("best", {}).get("name"), "rounds": loop.get("rounds"),
            "candidates": loop.get("candidates"), "seconds": loop.get("seconds"),
            "promotions": sum(k.startswith("promote") for k in kinds),
            "rejections": [d.get("reason") for d in loop.get("decisions", []) if not d["kind"].startswith("promote")],
            "stopped_by": loop.get("stopped_by")}


def read_profile(path, kharness=None):
    """A profile.json as stored, or diagnosed again with the current rules (`kharness profile
    --rediagnose`: the measured evidence unchanged, the bottleneck reasons and directions anew)."""
    if not kharness:
        return json.load(open(path))
    run = subprocess.run([kharness, "profile", "--rediagnose", path, "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{kharness} profile --rediagnose {path}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def operator_summary(dirs, d, kharness=None):
    files = {kind: find(dirs, f"{kind}_{d}.jsonl") for _, kind in BASELINES}
    files["flashinfer"] = find(dirs, f"flashinfer_{d}.jsonl", os.path.join("flashinfer", f"{d}.jsonl"))
    files["final"] = find(dirs, f"shipped_{d}.jsonl", f"final_{d}.jsonl")
    if not files["baseline"]:
        return None
    traces = {kind: read_traces(path) for kind, path in files.items() if path}
    promoted = "final" if "final" in traces else "baseline"
    best = traces[promoted]
    out = {"solution": next(iter(best.values()))["solution"], "promoted_by_loop": promoted == "final"}
    out.update(stats(best))
    profile_path = find(dirs, os.path.join(f"profile_{d}", "profile.json"))
    out["regimes"] = regimes(read_profile(profile_path, kharness), best) if profile_path else []
    memory = [r["sol_fraction"] for r in out["regimes"] if r["bound"] == "memory"]
    out["sol_memory_bound"] = min(memory) if memory else None
    out["floor_mean_ms"] = floor_mean(best)
    out["baselines"] = {}
    for label, kind in BASELINES:
        if kind in traces:
            entry = stats(traces[kind])
            entry.update(speedups(traces[kind], best))
            entry["solution"] = next(iter(traces[kind].values()))["solution"]
            entry["same_call"] = call_of(files[kind]) == call_of(files[promoted])
            out["baselines"][label] = entry
    target = B200_MEAN_MS.get(d)
    out["target"] = {"b200_mean_ms": target, "mean_met": out["mean_ms"] is not None and target is not None
                     and out["mean_ms"] <= target,
                     "reachable": None if target is None or out["floor_mean_ms"] is None
                     else out["floor_mean_ms"] <= target,
                     "sol_memory_bound_target": SOL_TARGET.get(d),
                     "sol_met": (out["sol_memory_bound"] >= SOL_TARGET[d]) if d in SOL_TARGET and memory else None}
    out["loop"] = loop_record(find(dirs, f"loop_{d}.json"))
    return out


def markdown(summary):
    lines = ["| operator | solution | passed | mean (ms) | geomean (ms) | B200 mean (ms) | floor mean (ms) |"
             " lowest memory-bound SOL | x kharness baseline | x PyTorch reference | x FlashInfer |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for d, s in summary.items():
        def x(label):
            b = s["baselines"].get(label)
            if not b or not b.get("common_workloads"):
                return "-"
            where = "" if b.get("same_call", True) else ", another call"
            return f"{b['speedup_of_means']:.2f} ({b['common_workloads']}{where})"
        sol = f"{s['sol_memory_bound']:.0%}" if s["sol_memory_bound"] is not None else "-"
        floor = f"{s['floor_mean_ms']:.4f}" if s.get("floor_mean_ms") is not None else "-"
        lines.append(f"| {d} | {s['solution']} | {s['passed']}/{s['workloads']} | {s['mean_ms']:.4f} | "
                     f"{s['geomean_ms']:.4f} | {s['target']['b200_mean_ms']} | {floor} | {sol} | {x('kharness_baseline')} | "
                     f"{x('pytorch_reference')} | {x('flashinfer')} |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("calls", nargs="+", help="folders of session.sh's output, oldest first")
    p.add_argument("--out", required=True)
    p.add_argument("--markdown")
    p.add_argument("--rediagnose", metavar="KHARNESS",
                   help="diagnose each profile.json again with this kharness binary's rules")
    a = p.parse_args()
    for d in a.calls:
        if not os.path.isdir(d):
            p.error(f"{d}: no such folder")
    summary = {}
    for d in B200_MEAN_MS:
        s = operator_summary(a.calls, d, a.rediagnose)
        if s:
            summary[d] = s
        else:
            print(f"summary.py: no baseline_{d}.jsonl in {' '.join(a.calls)}; left out", file=sys.stderr)
    with open(a.out, "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    text = markdown(summary)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
