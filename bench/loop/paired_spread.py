#!/usr/bin/env python3
"""Each paired comparison of a loop, per workload, from its archive:

    python3 bench/loop/paired_spread.py ARCHIVE_DIR [--json]

A round times the retained best and a candidate in pairs (baseline-gate with each gate,
baseline-1 with each full-1, baseline-2 with full-2, baseline-confirm with confirm), each pair
within one round of one loop. Where the loop measured the best again right after a batch of
gates or full sweeps (baseline-gate-<stage>, baseline-1-<stage>: the batch ran long after the
best's sweep), the batch is paired with that sweep, as the loop compared them. For each pair
this prints the best's latency over the candidate's on every workload both passed, and whether
the two sweeps drew the same inputs (the same seed). Between kernels that are the same on a
workload the ratio is the comparison's noise there: with inputs of their own a cost that
follows the data shows in it.
"""
import argparse
import json
import sqlite3
import sys

PAIRS = [("baseline-gate", "gate"), ("baseline-1", "full-1"), ("baseline-2", "full-2"), ("baseline-confirm", "confirm")]


def controller_runs(db):
    """run id -> (loop and round, phase, seed) for every step (the step key, "<loop>/r<round>/<phase>/<content
    id>", ends the command line; an ablation arm's loop id holds a slash itself)."""
    runs = {}
    for run_id, command_line, options in db.execute(
            "SELECT id, command_line_json, options_json FROM runs WHERE origin = 'controller'"):
        loop_round, phase, _ = json.loads(command_line)[-1].rsplit("/", 2)
        runs[run_id] = (loop_round, phase, json.loads(options).get("seed"))
    return runs


def passed_latencies(db, runs):
    """run id -> {workload uuid: (solution, latency ms, axes)} over the PASSED traces."""
    out = {run_id: {} for run_id in runs}
    for run_id, uuid, solution, latency, line in db.execute(
            "SELECT run_id, workload_uuid, solution, latency_ms, line FROM traces WHERE status = 'PASSED'"):
        if run_id in out:
            out[run_id][uuid] = (solution, latency, json.loads(line)["workload"].get("axes", {}))
    return out


def compared_with(order, i, best_phase, runs):
    """The best's run that the candidate run order[i] was compared with: the one measured again
    right after its batch (the candidate runs of its phase next to it), else the latest of
    `best_phase` or its re-measures before it; None when there is none."""
    phase = runs[order[i]][1]
    j = i + 1
    while j < len(order) and runs[order[j]][1] == phase:
        j += 1
    if j < len(order) and runs[order[j]][1].startswith(best_phase + "-"):
        return order[j]
    for k in range(i - 1, -1, -1):
        p = runs[order[k]][1]
        if p == best_phase or p.startswith(best_phase + "-"):
            return order[k]
    return None


def paired_ratios(archive_dir):
    db = sqlite3.connect(f"file:{archive_dir}/index.sqlite?mode=ro", uri=True)
    runs = controller_runs(db)
    latency = passed_latencies(db, runs)
    rounds = {}
    for run_id in sorted(runs):
        rounds.setdefault(runs[run_id][0], []).append(run_id)
    pairs = []
    for best_phase, candidate_phase in PAIRS:
        for c in sorted(runs):
            round_c, phase_c, seed_c = runs[c]
            if phase_c != candidate_phase or not latency[c]:
                continue
            order = rounds[round_c]
            b = compared_with(order, order.index(c), best_phase, runs)
            if b is None:
                continue
            seed_b = runs[b][2]
            shared = [u for u in latency[c] if u in latency[b]]
            shared.sort(key=lambda u: latency[b][u][1])
            pairs.append({
                "round": round_c, "best_phase": runs[b][1], "candidate_phase": candidate_phase,
                "candidate": next(iter(latency[c].values()))[0],
                "same_inputs": seed_b is not None and seed_b == seed_c,
                "workloads": [{"uuid": u, "axes": latency[c][u][2],
                               "ratio": latency[b][u][1] / latency[c][u][1]} for u in shared],
            })
    return pairs


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("archive", help="the loop's archive folder (holds index.sqlite)")
    ap.add_argument("--json", action="store_true", help="the pairs as JSON")
    args = ap.parse_args(argv)
    try:
        pairs = paired_ratios(args.archive)
    except (sqlite3.Error, OSError, KeyError, ValueError) as e:
        print(f"paired_spread: {args.archive}: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(pairs, indent=1))
        return 0
    for p in pairs:
        cells = ", ".join(f"{json.dumps(w['axes'])} {w['ratio']:.3f}" for w in p["workloads"])
        print(f"{p['best_phase']} / {p['candidate_phase']} {p['candidate']} "
              f"(same inputs: {'yes' if p['same_inputs'] else 'no'}): {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
