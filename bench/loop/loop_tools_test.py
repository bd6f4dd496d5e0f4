#!/usr/bin/env python3
"""The loop's scripts on made-up folders and traces: what propose.py hands the loop,
the solution candidate_solution.py rebuilds, and the figures summary.py derives."""
import contextlib
import io
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import candidate_solution  # noqa: E402
import paired_spread  # noqa: E402
import propose  # noqa: E402
import same_ptx  # noqa: E402
import summary  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tuner_set  # noqa: E402

DEF = "gdn_decode_qk4_v8_d128_k_last"


def write(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def candidate(root: pathlib.Path, folder: str, name: str, stage: str, sources=("kernel.cu", "core.cuh")) -> None:
    write(root / folder / "kernel.cu", f"// {name}\n")
    write(root / folder / "stage", stage + "\n")
    write(root / folder / "manifest.json", json.dumps({
        "name": name, "family": "memory_access", "hypothesis": f"{name} is faster", "language": "cuda",
        "entry_point": f"kernel.cu::{name}", "sources": list(sources)}))


REPO = pathlib.Path(__file__).resolve().parents[2]


def solution(name: str, text: str) -> dict:
    return {"name": name, "definition": DEF, "author": "t", "description": "d",
            "spec": {"language": "cuda", "target_hardware": ["cuda"], "entry_point": f"kernel.cu::{name}",
                     "dependencies": []},
            "sources": [{"path": "kernel.cu", "content": text}]}


@unittest.skipUnless(os.environ.get("KHARNESS_BIN") or (REPO / "build" / "kharness").exists(),
                     "no kharness binary (KHARNESS_BIN, or build/kharness)")
def archived_solution(root: pathlib.Path, definition: str, name: str):
    """The newest solution JSON named `name` that a device run committed under bench/results."""
    found = sorted(root.glob(f"bench/results/h200-loop/*/call*/final_{definition}.solution.json"),
                   key=lambda p: p.parts[-3:-1], reverse=True)
    for path in found:
        if json.loads(path.read_text())["name"] == name:
            return path
    return None


def proposed_from(candidates: pathlib.Path, parent) -> list:
    """Every staged candidate of `candidates` as propose.py writes it for a loop whose parent is
    the solution JSON `parent` (None: a parent with no files), explore and exploit stages both,
    as solutions (candidate_solution.py on the folder propose.py wrote)."""
    out = []
    with tempfile.TemporaryDirectory() as d:
        ws = pathlib.Path(d)
        (ws / "parent").mkdir()
        if parent is not None:
            for source in json.loads(parent.read_text())["sources"]:
                write(ws / "parent" / source["path"], source["content"])
        write(ws / "history.json", "[]")
        for stage in ("explore", "exploit"):
            write(ws / "hypothesis.json", json.dumps({"stage": stage, "max_candidates": 100}))
            shutil.rmtree(ws / "out", ignore_errors=True)
            (ws / "out").mkdir()
            with contextlib.redirect_stdout(io.StringIO()):
                propose.propose([candidates], ws)
            for folder in sorted((ws / "out").iterdir()):
                name = json.loads((folder / "manifest.json").read_text())["name"]
                out.append(candidate_solution.candidate_solution(ws / "out", name, candidates.parent.parent))
    return out


class SessionBestSolution(unittest.TestCase):
    """session.sh's best_solution: the loop's best as its archive holds it, whatever the
    candidates' folders say now."""

    def best(self, out: pathlib.Path, target: pathlib.Path) -> subprocess.CompletedProcess:
        binary = os.environ.get("KHARNESS_BIN") or str(REPO / "build" / "kharness")
        (out / "build").mkdir()
        (out / "build" / "kharness").symlink_to(binary)
        function = subprocess.run(["sed", "-n", "/^best_solution()/,/^}/p", str(REPO / "bench/loop/session.sh")],
                                  check=True, capture_output=True, text=True).stdout
        script = f'OUT={out}\n{function}\nbest_solution {DEF} {target}'
        return subprocess.run(["bash", "-c", script], cwd=out, capture_output=True, text=True)

    def archive(self, out: pathlib.Path, solutions: list) -> None:
        trace_set = out / "set"
        write(trace_set / "definitions" / f"{DEF}.json", (REPO / "operators" / DEF / "definition.json").read_text())
        for s in solutions:
            write(trace_set / "solutions" / f"{s['name']}.json", json.dumps(s))
        subprocess.run([os.environ.get("KHARNESS_BIN") or str(REPO / "build" / "kharness"), "archive", "import",
                        str(trace_set), "--archive", str(out / f"loop_{DEF}"), "--quiet"], check=True,
                       capture_output=True)

    def test_the_archived_sources_not_the_candidates_folder(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            self.archive(out, [solution("x_fast", "// as the loop measured it\n"), solution("x_slow", "// other\n")])
            write(out / f"loop_{DEF}.json", json.dumps({"best": {"name": "x_fast"}}))
            run = self.best(out, out / "best.json")
            self.assertEqual(run.returncode, 0, run.stderr)
            got = json.loads((out / "best.json").read_text())
            self.assertEqual(got["name"], "x_fast")
            self.assertEqual(got["sources"][0]["content"], "// as the loop measured it\n")

    def test_a_best_the_archive_lacks_is_an_error_not_a_rebuild(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            self.archive(out, [solution("x_fast", "// a\n")])
            write(out / f"loop_{DEF}.json", json.dumps({"best": {"name": "x_missing"}}))
            run = self.best(out, out / "best.json")
            self.assertNotEqual(run.returncode, 0)
            self.assertIn("x_missing", run.stderr)

    def test_the_baseline_kept_means_no_solution(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = pathlib.Path(tmp)
            write(out / f"loop_{DEF}.json", json.dumps({"best": {"name": f"{DEF}_baseline_cuda"}}))
            run = self.best(out, out / "best.json")
            self.assertEqual(run.returncode, 1)
            self.assertFalse((out / "best.json").exists())


sys.path.insert(0, str(REPO / "operators" / "gdn_prefill_qk4_v8_d128_k_last" / "loop"))
import dispatch_threshold  # noqa: E402


class DispatchThreshold(unittest.TestCase):
    """gdn_prefill's loop/dispatch_threshold.py: the hand-over rule from two sweeps."""

    def sweep(self, path: pathlib.Path, rows) -> None:
        with open(path, "w") as f:
            for uuid, total, seqs, us in rows:
                f.write(json.dumps({"workload": {"uuid": uuid, "axes": {"total_seq_len": total, "num_seqs": seqs}},
                                    "evaluation": {"status": "PASSED" if us else "RUNTIME_ERROR",
                                                   "performance": {"latency_ms": (us or 0) / 1e3}}}) + "\n")

    def test_the_rule_that_sends_short_batches_to_lane8_wins(self):
        with tempfile.TemporaryDirectory() as tmp:
            lane, chunked = pathlib.Path(tmp, "lane.jsonl"), pathlib.Path(tmp, "chunked.jsonl")
            # mean 10 tokens a sequence: lane8 16 us, the chunked path 40; mean 100: 300 against 100
            self.sweep(lane, [("a", 130, 13, 16.0), ("b", 1000, 10, 300.0), ("c", 50, 1, None)])
            self.sweep(chunked, [("a", 130, 13, 40.0), ("b", 1000, 10, 100.0), ("c", 50, 1, 9.0)])
            out = io.StringIO()
            with contextlib.redirect_stdout(out), unittest.mock.patch.object(
                    sys, "argv", ["dispatch_threshold.py", str(lane), str(chunked), "--json"]):
                self.assertEqual(dispatch_threshold.main(), 0)
            got = json.loads(out.getvalue())
            self.assertEqual(got["workloads"], 2)  # "c" failed in one sweep
            self.assertAlmostEqual(got["current"]["mean_us"], (40.0 + 100.0) / 2)
            self.assertAlmostEqual(got["oracle_mean_us"], (16.0 + 100.0) / 2)
            best = got["grid"][0]
            self.assertAlmostEqual(best["mean_us"], (16.0 + 100.0) / 2)
            self.assertTrue(10 < best["mean"] <= 100 or best["total"] >= 130)

    def test_a_file_that_is_not_traces_names_itself(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = pathlib.Path(tmp, "bad.jsonl")
            bad.write_text('{"x": 1}\n')
            with self.assertRaises(SystemExit) as raised:
                dispatch_threshold.latencies(str(bad))
            self.assertIn("bad.jsonl:1", str(raised.exception))


class Propose(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        root = pathlib.Path(self.tmp.name)
        self.candidates = root / "op" / "loop" / "candidates"
        candidate(self.candidates, "a", "op_a", "explore")
        candidate(self.candidates, "b", "op_b", "explore")
        candidate(self.candidates, "c", "op_c", "exploit")
        self.cheats = root / "cheats"
        candidate(self.cheats, "x", "op_cheat", "exploit")
        self.ws = root / "ws"
        write(self.ws / "parent" / "core.cuh", "// the parent's header\n")
        write(self.ws / "history.json", json.dumps([{"name": "op_b", "description": "tried"}]))
        (self.ws / "out").mkdir()

    def tearDown(self):
        self.tmp.cleanup()

    def stage(self, stage, room=8):
        write(self.ws / "hypothesis.json", json.dumps({"stage": stage, "max_candidates": room}))
        return propose.propose([self.candidates, self.cheats], self.ws)

    def test_only_this_stage_and_untried(self):
        self.assertEqual(self.stage("explore"), 0)
        self.assertEqual(sorted(p.name for p in (self.ws / "out").iterdir()), ["op_a"])
        out = self.ws / "out" / "op_a"
        self.assertEqual((out / "core.cuh").read_text(), "// the parent's header\n")
        self.assertEqual(json.loads((out / "manifest.json").read_text())["name"], "op_a")

    def test_every_folder_is_read_in_order(self):
        self.stage("exploit")
        self.assertEqual(sorted(p.name for p in (self.ws / "out").iterdir()), ["op_c", "op_cheat"])

    def test_budget_is_kept(self):
        write(self.ws / "history.json", "[]")
        self.stage("explore", room=1)
        self.assertEqual(len(list((self.ws / "out").iterdir())), 1)

    def test_a_candidate_whose_source_is_nowhere_is_left_out_naming_it(self):
        candidate(self.candidates, "d", "op_d", "exploit", sources=("kernel.cu", "missing.cuh"))
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(self.stage("exploit"), 0)
        self.assertIn("missing.cuh", err.getvalue())
        self.assertEqual(sorted(p.name for p in (self.ws / "out").iterdir()), ["op_c", "op_cheat"])

    def test_a_source_the_parent_lacks_comes_from_the_operator(self):
        # A loop started from a promoted solution: its parent holds only that solution's files.
        operator = self.candidates.parent.parent
        write(operator / "baseline.cuh", "// the operator's baseline header\n")
        write(self.ws / "history.json", "[]")
        candidate(self.cheats, "y", "op_cheat_y", "explore", sources=("kernel.cu", "core.cuh", "baseline.cuh"))
        self.stage("explore")
        out = self.ws / "out" / "op_cheat_y"
        self.assertEqual((out / "baseline.cuh").read_text(), "// the operator's baseline header\n")
        self.assertEqual((out / "core.cuh").read_text(), "// the parent's header\n")

    def test_the_operators_header_comes_before_the_parents_copy(self):
        # A loop from a solution promoted in an earlier loop: its parent holds the header as it
        # was then; a candidate written since calls what only the tree's version has.
        operator = self.candidates.parent.parent
        write(operator / "core.cuh", "// the operator's header\n")
        write(self.ws / "history.json", "[]")
        self.stage("exploit")
        out = self.ws / "out" / "op_c"
        self.assertEqual((out / "core.cuh").read_text(), "// the operator's header\n")

    def test_solution_takes_headers_from_the_operator(self):
        operator = self.candidates.parent.parent
        write(operator / "definition.json", json.dumps({"name": DEF}))
        write(operator / "core.cuh", "// the operator's header\n")
        s = candidate_solution.candidate_solution(self.candidates, "op_c")
        self.assertEqual(s["definition"], DEF)
        self.assertEqual(s["spec"]["entry_point"], "kernel.cu::op_c")
        self.assertEqual({x["path"]: x["content"] for x in s["sources"]},
                         {"kernel.cu": "// op_c\n", "core.cuh": "// the operator's header\n"})
        with self.assertRaisesRegex(KeyError, "op_z"):
            candidate_solution.candidate_solution(self.candidates, "op_z")


def trace(uuid, ms, name, status="PASSED", floor_ms=1.0, bound="memory"):
    return {"workload": {"uuid": uuid}, "solution": name, "evaluation": {
        "status": status, "performance": {"latency_ms": ms},
        "kharness": {"speed_of_light": {"floor_ms": floor_ms, "bound": bound, "fraction": floor_ms / ms}}}}


class Summary(unittest.TestCase):
    def test_figures(self):
        with tempfile.TemporaryDirectory() as d:
            def jsonl(name, traces):
                with open(os.path.join(d, name), "w") as f:
                    f.writelines(json.dumps(t) + "\n" for t in traces)
            jsonl(f"baseline_{DEF}.jsonl", [trace("u1", 4.0, "base"), trace("u2", 8.0, "base"),
                                            trace("u3", 2.0, "base", bound="compute")])
            jsonl(f"final_{DEF}.jsonl", [trace("u1", 2.0, "fast"), trace("u2", 2.0, "fast"),
                                         trace("u3", 1.0, "fast", status="INCORRECT_NUMERICAL")])
            jsonl(f"pytorch_{DEF}.jsonl", [trace("u1", 40.0, "torch")])
            os.makedirs(os.path.join(d, f"profile_{DEF}"))
            with open(os.path.join(d, f"profile_{DEF}", "profile.json"), "w") as f:
                json.dump({"regimes": [{"name": "small", "axes": "b 1", "members": ["u1", "u2"]},
                                       {"name": "large", "axes": "b 9", "members": ["u3"]}]}, f)
            s = summary.operator_summary([d], DEF)
        self.assertEqual((s["solution"], s["workloads"], s["passed"]), ("fast", 3, 2))
        self.assertAlmostEqual(s["mean_ms"], 2.0)
        self.assertAlmostEqual(s["geomean_ms"], 2.0)
        # One regime: the other's only member failed, so it has no fraction.
        self.assertEqual([r["name"] for r in s["regimes"]], ["small"])
        self.assertAlmostEqual(s["sol_memory_bound"], 0.5)  # median of 1/2 and 1/2
        base = s["baselines"]["kharness_baseline"]
        self.assertEqual(base["common_workloads"], 2)
        self.assertAlmostEqual(base["speedup_of_means"], 3.0)  # 6 ms against 2 ms
        self.assertAlmostEqual(base["speedup_geomean"], (2.0 * 4.0) ** 0.5)
        self.assertAlmostEqual(s["baselines"]["pytorch_reference"]["speedup_of_means"], 20.0)
        self.assertNotIn("flashinfer", s["baselines"])
        self.assertFalse(s["target"]["mean_met"])
        self.assertFalse(s["target"]["sol_met"])
        # Every workload's floor counts, the failed one's too: 1 ms each, far above the 6.2 us target.
        self.assertAlmostEqual(s["floor_mean_ms"], 1.0)
        self.assertFalse(s["target"]["reachable"])

    def test_a_target_is_reachable_when_the_mean_of_the_floors_is_below_it(self):
        with tempfile.TemporaryDirectory() as d:
            for kind, ms in (("baseline", 0.02), ("final", 0.01)):
                with open(os.path.join(d, f"{kind}_{DEF}.jsonl"), "w") as f:
                    f.writelines(json.dumps(trace(u, ms, kind, floor_ms=fl)) + "\n"
                                 for u, fl in (("u1", 0.004), ("u2", 0.008)))
            s = summary.operator_summary([d], DEF)
        self.assertAlmostEqual(s["floor_mean_ms"], 0.006)
        self.assertTrue(s["target"]["reachable"])  # 6.0 us against the 6.2 us B200 mean
        self.assertFalse(s["target"]["mean_met"])
        self.assertIn("| 0.0060 |", summary.markdown({DEF: s}))


    @unittest.skipUnless(os.environ.get("KHARNESS_BIN"), "KHARNESS_BIN not set (CTest sets it)")
    def test_rediagnose_takes_the_reasons_from_the_current_rules(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, f"baseline_{DEF}.jsonl"), "w") as f:
                f.write(json.dumps(trace("u1", 0.0139, "base")) + "\n")
            os.makedirs(os.path.join(d, f"profile_{DEF}"))
            kernel = {"kernel": "ns::select_kernel(const float *)", "duration_us": 8.5, "sm_throughput_pct": 1,
                      "memory_throughput_pct": 1, "waves_per_sm": 0.02,
                      "top_stalls": [{"reason": "wait", "value": 2.5}]}
            with open(os.path.join(d, f"profile_{DEF}", "profile.json"), "w") as f:
                json.dump({"regimes": [{"name": "small", "axes": "b 1", "members": ["u1"], "latency_ms": 0.0139,
                                        "bottleneck": "latency", "bottleneck_reason": "the kernel waits",
                                        "kernels": [kernel]}]}, f)
            stored = summary.operator_summary([d], DEF)
            again = summary.operator_summary([d], DEF, os.environ["KHARNESS_BIN"])
        self.assertEqual(stored["regimes"][0]["bottleneck_reason"], "the kernel waits")
        self.assertIn("select_kernel (8.5 us, 0.02 waves per SM)", again["regimes"][0]["bottleneck_reason"])
        self.assertEqual(again["regimes"][0]["sol_fraction"], stored["regimes"][0]["sol_fraction"])

    def test_a_later_calls_shipped_solution_replaces_the_final_and_says_which_call(self):
        with tempfile.TemporaryDirectory() as root:
            early, late = os.path.join(root, "call1"), os.path.join(root, "call2")
            for d in (early, late):
                os.makedirs(d)

            def jsonl(folder, name, traces):
                with open(os.path.join(folder, name), "w") as f:
                    f.writelines(json.dumps(t) + "\n" for t in traces)
            jsonl(early, f"baseline_{DEF}.jsonl", [trace("u1", 4.0, "base")])
            jsonl(early, f"final_{DEF}.jsonl", [trace("u1", 2.0, "first")])
            jsonl(late, f"shipped_{DEF}.jsonl", [trace("u1", 1.0, "shipped")])
            jsonl(late, f"pytorch_{DEF}.jsonl", [trace("u1", 10.0, "torch")])
            jsonl(early, f"flashinfer_{DEF}.jsonl", [trace("u1", 3.0, "fi_old")])
            os.makedirs(os.path.join(late, "flashinfer"))
            jsonl(os.path.join(late, "flashinfer"), f"{DEF}.jsonl", [trace("u1", 2.0, "fi_new")])
            s = summary.operator_summary([early, late], DEF)
        self.assertEqual(s["solution"], "shipped")
        self.assertTrue(s["promoted_by_loop"])
        self.assertAlmostEqual(s["baselines"]["kharness_baseline"]["speedup_of_means"], 4.0)
        self.assertFalse(s["baselines"]["kharness_baseline"]["same_call"])
        self.assertTrue(s["baselines"]["pytorch_reference"]["same_call"])
        self.assertEqual(s["baselines"]["flashinfer"]["solution"], "fi_new")  # run.sh's folder, the later call
        self.assertTrue(s["baselines"]["flashinfer"]["same_call"])
        self.assertIn("another call", summary.markdown({DEF: s}))


class PairedSpread(unittest.TestCase):
    """A loop's archive reduced to the two tables the script reads."""

    def archive(self, folder, steps):
        import sqlite3
        db = sqlite3.connect(folder / "index.sqlite")
        db.execute("CREATE TABLE runs (id INTEGER, origin TEXT, command_line_json TEXT, options_json TEXT)")
        db.execute("CREATE TABLE traces (run_id INTEGER, workload_uuid TEXT, solution TEXT, status TEXT, "
                   "latency_ms REAL, line TEXT)")
        for run_id, (key_round, phase, seed, solution, latencies) in enumerate(steps, 1):
            key = f"abl/arm/{key_round}/{phase}/{solution[:16]}"
            db.execute("INSERT INTO runs VALUES (?, 'controller', ?, ?)",
                       (run_id, json.dumps(["kharness", "--step", key]), json.dumps({"seed": seed})))
            for uuid, (status, latency) in latencies.items():
                line = json.dumps({"workload": {"uuid": uuid, "axes": {"n": uuid}}})
                db.execute("INSERT INTO traces VALUES (?, ?, ?, ?, ?, ?)",
                           (run_id, uuid, solution, status, latency, line))
        db.commit()
        db.close()

    def test_ratios_per_pair_and_whether_the_inputs_were_shared(self):
        with tempfile.TemporaryDirectory() as d:
            folder = pathlib.Path(d)
            self.archive(folder, [
                ("r1", "baseline-1", 5, "best", {"a": ("PASSED", 2.0), "b": ("PASSED", 1.0)}),
                ("r1", "gate", 9, "cand", {"a": ("PASSED", 1.0)}),
                ("r1", "full-1", 5, "cand", {"a": ("PASSED", 1.0), "b": ("INCORRECT_NUMERICAL", 0.5)}),
                ("r1", "baseline-2", 6, "best", {"a": ("PASSED", 2.0)}),
                ("r1", "full-2", 7, "cand", {"a": ("PASSED", 4.0)}),
                ("r2", "baseline-1", 8, "cand", {"a": ("PASSED", 1.0)}),
                ("r2", "full-1", 8, "next", {"a": ("PASSED", 0.5)}),
            ])
            pairs = paired_spread.paired_ratios(folder)
        # A pair is within one round of one loop (here an ablation arm's, "abl/arm").
        self.assertEqual([(p["round"], p["best_phase"], p["candidate_phase"]) for p in pairs],
                         [("abl/arm/r1", "baseline-1", "full-1"), ("abl/arm/r2", "baseline-1", "full-1"),
                          ("abl/arm/r1", "baseline-2", "full-2")])
        first, later, second = pairs
        self.assertEqual([w["ratio"] for w in later["workloads"]], [2.0])
        self.assertTrue(first["same_inputs"])
        self.assertFalse(second["same_inputs"])
        self.assertEqual(first["candidate"], "cand")
        # Only the workloads both passed; the best's latency over the candidate's.
        self.assertEqual([(w["uuid"], w["ratio"]) for w in first["workloads"]], [("a", 2.0)])
        self.assertEqual([w["ratio"] for w in second["workloads"]], [0.5])

    def test_a_batch_measured_long_after_its_baseline_pairs_with_the_best_measured_again(self):
        with tempfile.TemporaryDirectory() as d:
            folder = pathlib.Path(d)
            self.archive(folder, [
                ("r1", "baseline-1", 5, "best", {"a": ("PASSED", 2.0)}),
                ("r1", "baseline-gate", 9, "best", {"a": ("PASSED", 3.0)}),
                ("r1", "gate", 9, "x", {"a": ("PASSED", 1.0)}),
                ("r1", "gate", 9, "y", {"a": ("PASSED", 1.0)}),
                ("r1", "full-1", 5, "x", {"a": ("PASSED", 1.0)}),
                ("r1", "full-1", 5, "y", {"a": ("PASSED", 1.0)}),
                ("r1", "baseline-1-explore", 5, "best", {"a": ("PASSED", 4.0)}),
                ("r1", "gate", 9, "z", {"a": ("PASSED", 1.0)}),
                ("r1", "baseline-gate-exploit", 9, "best", {"a": ("PASSED", 5.0)}),
                ("r1", "full-1", 5, "z", {"a": ("PASSED", 1.0)}),
            ])
            pairs = paired_spread.paired_ratios(folder)
        got = [(p["best_phase"], p["candidate"], p["workloads"][0]["ratio"]) for p in pairs]
        # x and y's gates ran right after baseline-gate; their full sweeps were compared with the
        # best measured again after them; z, of the next stage, with the latest of each kind.
        self.assertEqual(got, [("baseline-gate", "x", 3.0), ("baseline-gate", "y", 3.0),
                               ("baseline-gate-exploit", "z", 5.0),
                               ("baseline-1-explore", "x", 4.0), ("baseline-1-explore", "y", 4.0),
                               ("baseline-1-explore", "z", 4.0)])
        self.assertTrue(all(p["same_inputs"] for p in pairs))

    def test_a_folder_without_an_archive_is_an_error_naming_it(self):
        with tempfile.TemporaryDirectory() as d:
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc = paired_spread.main([str(pathlib.Path(d) / "none")])
        self.assertEqual(rc, 2)
        self.assertIn("none", err.getvalue())


class Shipped(unittest.TestCase):
    def test_every_operators_shipped_name_is_one_of_its_candidates(self):
        operators = pathlib.Path(__file__).resolve().parents[2] / "operators"
        shipped = sorted(operators.glob("*/loop/shipped"))
        self.assertTrue(shipped, f"no operators/*/loop/shipped under {operators}")
        for path in shipped:
            name = path.read_text().strip()
            s = candidate_solution.candidate_solution(path.parent / "candidates", name)
            self.assertEqual(s["name"], name, path)
            self.assertTrue(s["sources"], path)


    @unittest.skipUnless(shutil.which("nvcc"), "nvcc not found: the CUDA candidates are not compiled")
    def test_every_shipped_or_staged_cuda_candidate_compiles_from_its_solution_alone(self):
        # What a loop or an eval builds: the solution's sources in one folder, nothing else. The
        # shipped candidate of every operator; every candidate staged for the next loop as
        # propose.py hands it to a loop started (--from) at the shipped solution as a device run
        # archived it (bench/results), whose shared headers are those of that day.
        root = pathlib.Path(__file__).resolve().parents[2]
        for path in sorted((root / "operators").glob("*/loop/shipped")):
            candidates = path.parent / "candidates"
            shipped = path.read_text().strip()
            with self.subTest(candidate=shipped):
                self.compile_cuda_solution(root, candidate_solution.candidate_solution(candidates, shipped))
            parent = archived_solution(root, path.parent.parent.name, shipped)
            for s in proposed_from(candidates, parent):
                with self.subTest(candidate=s["name"], parent=str(parent)):
                    self.compile_cuda_solution(root, s)

    def compile_cuda_solution(self, root, s):
        if s["spec"]["language"] != "cuda":
            return
        with tempfile.TemporaryDirectory() as d:
            for source in s["sources"]:
                write(pathlib.Path(d) / source["path"], source["content"])
            entry = s["spec"]["entry_point"].split("::")[0]
            run = subprocess.run(
                ["nvcc", "-std=c++17", "-gencode=arch=compute_90a,code=sm_90a", "-I", str(root / "include"),
                 "-c", entry, "-o", "kernel.o"], cwd=d, capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, f"{s['name']}: {run.stderr[-2000:]}")


class SamePtx(unittest.TestCase):
    def test_a_kernel_differing_after_an_inline_asm_block_is_another_kernel(self):
        # An inline asm block ("{ .reg ...; ... }" on lines of their own, as mbarrier waits are
        # written) closes a brace inside the kernel; the body runs on to the kernel's own last brace.
        def entry(arrive):
            return (".visible .entry _Z1kv(\n)\n{\n\t.reg .b32 %r<3>;\n\t// begin inline asm\n{\n"
                    ".reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%r1], %r2;\n}\n"
                    "\t// end inline asm\n" + arrive + "\n\tret;\n\n}\n\n")
        old = same_ptx.kernels(entry("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];"))
        new = same_ptx.kernels(entry("mbarrier.arrive.shared::cluster.b64 _, [remote];"))
        self.assertEqual(list(old), ["_Z1kv"])
        self.assertTrue(old["_Z1kv"].rstrip().endswith("}"), old["_Z1kv"])
        self.assertIn("ret;", old["_Z1kv"])
        self.assertNotEqual(same_ptx.canonical(old["_Z1kv"]), same_ptx.canonical(new["_Z1kv"]))

    def test_a_kernel_is_the_same_kernel_in_any_namespace(self):
        # nvcc names an anonymous namespace after a hash of the file's path (two trees, two
        # names), and a kernel moved into a shared header's namespace keeps its body.
        here = "_ZN41_GLOBAL__N__83179ff2_9_kernel_cu_cab55b4716mma_score_kernelEPKhS1_PKfPKiS5_iiPf"
        there = "_ZN41_GLOBAL__N__0d1e2f3a_9_kernel_cu_5f6e7d8c16mma_score_kernelEPKhS1_PKfPKiS5_iiPf"
        named = "_ZN13dsa_mma_score16mma_score_kernelEPKhS1_PKfPKiS5_iiPf"
        other = "_ZN41_GLOBAL__N__0d1e2f3a_9_kernel_cu_5f6e7d8c12fused_kernelEPKhS1_PKfPKiS5_iiPfPi"
        self.assertEqual(same_ptx.plain(here), same_ptx.plain(there))
        self.assertEqual(same_ptx.plain(here), same_ptx.plain(named))
        self.assertNotEqual(same_ptx.plain(here), same_ptx.plain(other))
        self.assertEqual(same_ptx.plain("_Z6kernelPf"), "_Z6kernelPf")  # no namespace: unchanged


    def test_a_kernel_that_became_a_template_pairs_by_its_own_name(self):
        # range_select's select_kernel, then the false branch of select_kernel<kPdl> in a header.
        before = "_ZN41_GLOBAL__N__0ee49dd3_9_kernel_cu_3ca943e213select_kernelEPKfPKiS3_iiPi"
        after = "_ZN16dsa_range_select13select_kernelILb0EEEvPKfPKiS4_iiPi"
        self.assertNotEqual(same_ptx.unflagged(before), same_ptx.unflagged(after))
        self.assertEqual(same_ptx.base_name(before), same_ptx.base_name(after))
        self.assertEqual(same_ptx.base_name("_Z6kernelPf"), "kernel")
        self.assertNotEqual(same_ptx.base_name(after), same_ptx.base_name(
            "_ZN16dsa_range_select16mma_score_kernelILb0EEEvPKhS2_PKfPKiS6_iiPf"))

    def test_module_scope_memory_a_kernel_names_is_part_of_it(self):
        # Dynamic shared memory's alignment and a constant table's values live outside the
        # .entry body in PTX; two kernels that differ only there are not the same kernel.
        def module(align, values):
            return (f".const .align 4 .b8 _ZN3tab1tE[8] = {{{values}}};\n"
                    f".extern .shared .align {align} .b8 _ZN1x4smemE[];\n\n"
                    ".entry _Z1kv(\n)\n{\n\tmov.u64 %rd1, _ZN3tab1tE;\n\tmov.u64 %rd2, _ZN1x4smemE;\n}\n")

        def body(ptx):
            return same_ptx.canonical(same_ptx.kernels(ptx)["_Z1kv"])

        same = body(module(16, "1, 0, 0, 0,\n 2, 0, 0, 0"))
        self.assertEqual(same, body(module(16, "1, 0, 0, 0, 2, 0, 0, 0")))  # line breaks do not count
        self.assertNotEqual(same, body(module(1024, "1, 0, 0, 0, 2, 0, 0, 0")))
        self.assertNotEqual(same, body(module(16, "1, 0, 0, 0, 3, 0, 0, 0")))

    def test_a_demoted_shared_variable_is_the_module_scope_one(self):
        # ptxas declares a static __shared__ array inside the one kernel that uses it; once a
        # second kernel shares the device function declaring it, it moves to module scope. The
        # memory is the same; a different size is not.
        def demoted(size):
            return (".entry _Z1kv(\n)\n{\n\t// demoted variable\n"
                    f"\t.shared .align 4 .b8 _ZZ1fvE1w[{size}];\n\tmov.u32 %r1, _ZZ1fvE1w;\n}}\n")

        module = (".shared .align 4 .b8 _ZZ1fvE1w[64];\n\n"
                  ".entry _Z1kv(\n)\n{\n\tmov.u32 %r1, _ZZ1fvE1w;\n}\n")

        def body(ptx):
            return same_ptx.canonical(same_ptx.kernels(ptx)["_Z1kv"])

        self.assertEqual(body(demoted(64)), body(module))
        self.assertNotEqual(body(demoted(128)), body(module))


class TunerSet(unittest.TestCase):
    def test_measured_latency_ranks_before_the_axes(self):
        # A long single sequence: small product of axes, the longest call.
        lines = [{"workload": {"uuid": u, "axes": {"n": n, "s": s}}}
                 for u, n, s in (("a", 100, 10), ("b", 80, 1), ("c", 50, 4), ("d", 900, 30))]
        by_axes = [l["workload"]["uuid"] for l in tuner_set.rank(lines, ["n", "s"])]
        self.assertEqual(by_axes, ["b", "c", "a", "d"])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "t.jsonl")
            with open(path, "w") as f:
                for u, ms, st in (("a", 0.02, "PASSED"), ("b", 2.0, "PASSED"), ("c", 0.01, "PASSED"),
                                  ("d", 9.0, "INCORRECT_NUMERICAL")):
                    f.write(json.dumps({"workload": {"uuid": u}, "evaluation": {
                        "status": st, "performance": {"latency_ms": ms}}}) + "\n")
            latencies = tuner_set.measured_latencies(path)
        ranked = tuner_set.rank(lines, ["n", "s"], latencies)
        # Measured first, by latency; the failed one (no latency) last.
        self.assertEqual([l["workload"]["uuid"] for l in ranked], ["c", "a", "b", "d"])
        self.assertEqual([l["workload"]["uuid"] for l in tuner_set.pick(ranked, [0.0, 0.5, 1.0])], ["c", "b", "d"])


import ncu_source_stalls  # noqa: E402


class NcuSourceStalls(unittest.TestCase):
    """The stall ranking of an ncu source page: each kernel once, instructions by samples."""

    PAGE = "\n".join([
        '"Kernel Name","void k<(bool)1>(int)",',
        '"Address","Source","Warp Stall Sampling (All Samples)","stall_long_sb","stall_wait","stall_long_sb (Not Issued)"',
        '"0x10","  FMUL R1, R2, R3","900","880","20","800"',
        '"0x20","  QGMMA.64x128x32 R24","100","0","100","0"',
        '"Kernel Name","void k<(bool)1>(int)",',
        '"Address","Source","Warp Stall Sampling (All Samples)","stall_long_sb","stall_wait","stall_long_sb (Not Issued)"',
        '"0x10","  FMUL R1, R2, R3","900","880","20","800"',
        '"Kernel Name","void g(int)",',
        '"Address","Source","Warp Stall Sampling (All Samples)","stall_long_sb","stall_wait","stall_long_sb (Not Issued)"',
        '"0x30","  BRA 0x10","1,000","0","1,000","0"',
    ])

    def test_ranks_each_kernel_once(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "source.csv")
            with open(path, "w") as f:
                f.write(self.PAGE + "\n")
            out = io.StringIO()
            with unittest.mock.patch.object(sys, "argv", ["ncu_source_stalls.py", path, "5"]), \
                    contextlib.redirect_stdout(out):
                ncu_source_stalls.main()
        text = out.getvalue()
        self.assertEqual(text.count("void k<(bool)1>(int)"), 1)  # the repeated page is skipped
        self.assertIn("1000 samples; stall_wait 100.0%", text)  # "1,000" read as a number
        lines = text.splitlines()
        first = lines.index(next(l for l in lines if l.startswith("void k")))
        self.assertIn("90.0%", lines[first + 1])
        self.assertIn("FMUL R1, R2, R3", lines[first + 1])
        self.assertIn("stall_long_sb", lines[first + 1])
        self.assertIn("stall_wait", lines[first + 2])  # the QGMMA's samples are waits


if __name__ == "__main__":
    unittest.main()
