#!/usr/bin/env python3
"""timing_gap.py's reading of ncu's raw CSV page as timing_gap.sh captures it: the
profiled command's own output first, units such as "ns" and "hz", and the script's
step line after the page."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import timing_gap  # noqa: E402

PAGE = """==PROF== Connected to process 625 (/work/main/build/kharness)
gdn_decode_qk4_v8_d128_k_last_baseline_cuda on gdn_decode_qk4_v8_d128_k_last (NVIDIA H200)
workload   axes   status
7b949ee3   batch_size=1   PASSED
"ID","Kernel Name","gpu__time_duration.sum","sm__cycles_elapsed.avg.per_second","launch__grid_size","launch__block_size"
"","","ns","hz","",""
"0","gdn_decode_baseline_kernel","3,616","1,956,326,260.39","64","128"
gdn_decode_small:ncu_cache_all rc=0 seconds=4
"""


class NcuPageTest(unittest.TestCase):
    def test_reads_the_kernel_after_the_commands_output_in_microseconds(self):
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write(PAGE)
        try:
            kernels = timing_gap.ncu_kernels(f.name)
        finally:
            os.unlink(f.name)
        self.assertEqual(len(kernels), 1)
        self.assertEqual(kernels[0]["kernel"], "gdn_decode_baseline_kernel")
        self.assertAlmostEqual(kernels[0]["gpu_time_us"], 3.616)
        self.assertAlmostEqual(kernels[0]["sm_clock_mhz"], 1956.32626039)
        self.assertEqual(kernels[0]["grid"], "64")


if __name__ == "__main__":
    unittest.main()
