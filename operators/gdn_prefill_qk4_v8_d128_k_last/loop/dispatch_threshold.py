#!/usr/bin/env python3
"""Where the chunked path should hand a call to lane8, from two sweeps of the same workloads.

    python3 dispatch_threshold.py LANE8_TRACES CHUNKED_TRACES [--json]

Each argument is a kharness trace file (JSONL, gzipped or not) of one solution over the same
workloads: lane8 alone, and a chunked candidate whose run<> sends a call to lane8 when
total < 8 * num_seqs or total <= 32 (gdn_chunk_pass.cuh). The host knows only total_seq_len
and num_seqs (the lengths are on the device), so the rule is lane8 when
total < MEAN * num_seqs or total <= TOTAL; this prints the mean latency over the workloads
both passed for each rule of a grid, best first, beside the current rule's and the oracle's
(the faster of the two on every workload). The two sweeps should come from one device call
or machines alike: the choice compares their latencies workload by workload.
"""
import argparse
import gzip
import json
import sys

MEANS = (8, 12, 16, 24, 32, 48, 64)
TOTALS = (32, 64, 128, 256, 512, 1024)


def latencies(path: str) -> dict:
    """uuid -> (total_seq_len, num_seqs, latency in us) of the passed workloads."""
    opener = gzip.open if path.endswith(".gz") else open
    out = {}
    with opener(path, "rt") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                trace = json.loads(line)
                ev, axes = trace["evaluation"], trace["workload"]["axes"]
                if ev.get("status") == "PASSED":
                    out[trace["workload"]["uuid"]] = (axes["total_seq_len"], axes["num_seqs"],
                                                      1e3 * ev["performance"]["latency_ms"])
            except (KeyError, TypeError, ValueError) as e:
                raise SystemExit(f"{path}:{n}: not a kharness trace with axes total_seq_len, num_seqs: {e}")
    return out


def rule_mean(rows, mean, total):
    """Mean latency when calls with total < mean * num_seqs or total <= total go to lane8."""
    picked = [lane if (t < mean * n or t <= total) else chunked for t, n, lane, chunked in rows]
    return sum(picked) / len(picked)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lane8")
    parser.add_argument("chunked")
    parser.add_argument("--json", action="store_true", help="the grid as JSON")
    args = parser.parse_args()
    lane, chunked = latencies(args.lane8), latencies(args.chunked)
    both = sorted(set(lane) & set(chunked))
    if not both:
        print("dispatch_threshold.py: no workload passed in both files", file=sys.stderr)
        return 1
    rows = [(lane[u][0], lane[u][1], lane[u][2], chunked[u][2]) for u in both]
    grid = sorted((rule_mean(rows, m, t), m, t) for m in MEANS for t in TOTALS)
    result = {
        "workloads": len(rows),
        "current": {"mean": 8, "total": 32, "mean_us": rule_mean(rows, 8, 32)},
        "oracle_mean_us": sum(min(r[2], r[3]) for r in rows) / len(rows),
        "grid": [{"mean": m, "total": t, "mean_us": us} for us, m, t in grid],
    }
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
        return 0
    print(f"{len(rows)} workloads passed in both; mean latency by rule (lane8 when total < MEAN * num_seqs "
          f"or total <= TOTAL):")
    print(f"  current (8, 32): {result['current']['mean_us']:.2f} us; oracle: {result['oracle_mean_us']:.2f} us")
    for row in result["grid"][:8]:
        print(f"  MEAN {row['mean']:3d} TOTAL {row['total']:5d}: {row['mean_us']:.2f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
