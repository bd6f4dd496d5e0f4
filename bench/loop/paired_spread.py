#!/usr/bin/env python3
"""Per workload, each candidate sweep's latency over the retained best's in the sweep it is paired
with (baseline-N against full-N, baseline-confirm against confirm), from a loop's archive."""
import json, sqlite3, sys, collections
db = sqlite3.connect(sys.argv[1] + "/index.sqlite")
runs = {}
for rid, cl, opts in db.execute("SELECT id, command_line_json, options_json FROM runs WHERE origin='controller'"):
    key = json.loads(cl)[-1]
    phase = key.split("/")[-2]
    runs[rid] = (phase, json.loads(opts).get("seed"))
lat = collections.defaultdict(dict)
axes = {}
for rid, w, sol, st, l, line in db.execute("SELECT run_id, workload_uuid, solution, status, latency_ms, line FROM traces"):
    if rid in runs and st == "PASSED":
        lat[rid][w] = (sol, l)
        axes[w] = json.loads(line)["workload"]["axes"]
pairs = [("baseline-1", "full-1"), ("baseline-2", "full-2"), ("baseline-confirm", "confirm")]
for b, c in pairs:
    for rb, (pb, sb) in runs.items():
        if pb != b: continue
        for rc, (pc, sc) in runs.items():
            if pc != c: continue
            rows = []
            for w in sorted(lat[rc], key=lambda w: lat[rb].get(w, ("", 0))[1] or 0):
                if w in lat[rb]:
                    rows.append(f"{axes[w]}: {lat[rb][w][1] / lat[rc][w][1]:.3f}")
            name = next(iter(lat[rc].values()))[0].rsplit("_", 2)[-2:] if lat[rc] else "?"
            print(f"{b} vs {c} {'_'.join(name)} same inputs={sb == sc}: " + ", ".join(rows))
