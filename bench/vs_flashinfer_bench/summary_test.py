#!/usr/bin/env python3
"""summary.py on made-up traces: the floor, verdict agreement and latency agreement."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import summary  # noqa: E402


def kh_trace(uuid, status, cand_ms, ref_ms):
    return {"workload": {"uuid": uuid}, "evaluation": {
        "status": status, "performance": {"latency_ms": cand_ms},
        "kharness": {"protocol": {"correctness_trials": 3, "warmup": 10, "iterations": 50, "trials": 3},
                     "latency": {"latency_ms": cand_ms}, "reference_latency": {"latency_ms": ref_ms},
                     "device": {"l2_bytes": 50 * 2**20},
                     "speed_of_light": {"device_peaks": {"bandwidth_bytes_per_s": 4e12}}}}}


def fib_trace(uuid, status, ms):
    return {"workload": {"uuid": uuid}, "evaluation": {"status": status, "performance": {"latency_ms": ms}}}


class Summary(unittest.TestCase):
    def test_floor_counts_every_call_and_flush(self):
        traces = [kh_trace("a", "PASSED", 1.0, 2.0)]
        flush_ms = 2 * 50 * 2**20 / 4e12 * 1e3
        want = ((3 + 180) * 3.0 + 2 * 180 * flush_ms) / 1e3
        self.assertAlmostEqual(summary.floor_seconds(traces), want)

    def test_agreement_and_targets(self):
        kh = [kh_trace("a", "PASSED", 1.0, 2.0), kh_trace("b", "PASSED", 2.0, 2.0)]
        persistent = [fib_trace("a", "PASSED", 1.01), fib_trace("b", "PASSED", 2.1)]
        isolated = [fib_trace("a", "PASSED", 0.99)]
        times = {"kharness_s": 1.0, "fib_persistent_s": 40.0, "fib_isolated_s": 8.0, "fib_isolated_workloads": 1}
        s = summary.summarise(times, kh, persistent, isolated)
        self.assertTrue(s["verdicts_agree"])
        self.assertEqual(s["workloads"], 2)
        self.assertTrue(s["fib_isolated_subset"])
        self.assertAlmostEqual(s["fib_isolated_s_all_estimate"], 16.0)
        self.assertAlmostEqual(s["vs_persistent"]["latency_abs_deviation_max"], 1 - 2.0 / 2.1)
        self.assertEqual(s["vs_persistent"]["latency_within_2pct"], 1)
        self.assertTrue(s["targets"]["kharness_le_third_of_persistent"])
        self.assertFalse(s["targets"]["kharness_le_thirtieth_of_isolated"])

    def test_a_cut_kharness_run_is_no_agreement(self):
        kh = [kh_trace("a", "PASSED", 1.0, 2.0)]
        times = {"kharness_s": 60, "fib_persistent_s": 45, "fib_isolated_s": 8, "kharness_complete": False}
        s = summary.summarise(times, kh, [fib_trace("a", "PASSED", 1.0)], [])
        self.assertFalse(s["kharness_complete"])
        self.assertFalse(s["verdicts_agree"])
        self.assertTrue(any("cut by its time limit" in n for n in s["notes"]))

    def test_a_disagreeing_verdict_is_named(self):
        kh = [kh_trace("a", "PASSED", 1.0, 2.0)]
        s = summary.summarise({"kharness_s": 1, "fib_persistent_s": 1, "fib_isolated_s": 1},
                              kh, [fib_trace("a", "INCORRECT_NUMERICAL", 1.0)], [])
        self.assertFalse(s["verdicts_agree"])
        self.assertEqual(s["vs_persistent"]["disagreements"][0]["uuid"], "a")

    def test_fib_traces_are_found_under_traces(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "traces", "gemm"))
            with open(os.path.join(d, "traces", "gemm", "x.jsonl"), "w") as f:
                f.write(json.dumps(fib_trace("a", "PASSED", 1.0)) + "\n")
            self.assertEqual(summary.by_workload(summary.fib_traces(d)), {"a": ("PASSED", 1.0)})


if __name__ == "__main__":
    unittest.main()
