#!/usr/bin/env python3
"""The module layer check on small made-up trees: it must refuse each kind of wrong-way
include, and pass a tree whose includes all point down."""
import pathlib
import subprocess
import sys
import tempfile
import unittest

CHECK = pathlib.Path(__file__).resolve().parents[2] / "scripts/check_module_layers.py"


def tree(root, files):
    (root / "src").mkdir()
    (root / "src/CMakeLists.txt").write_text("add_subdirectory(low)\nadd_subdirectory(high)\n")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def run_check(files):
    with tempfile.TemporaryDirectory() as root:
        tree(pathlib.Path(root), files)
        done = subprocess.run([sys.executable, str(CHECK), "--root", root], capture_output=True, text=True)
        return done.returncode, done.stdout + done.stderr


class ModuleLayers(unittest.TestCase):
    def test_includes_pointing_down_pass(self):
        code, out = run_check({"src/high/h.cpp": '#include "low/l.h"\n#include "high/detail/d.h"\n',
                               "src/low/l.h": "#pragma once\n"})
        self.assertEqual(code, 0, out)
        self.assertIn("high       -> low (1)", out)

    def test_a_back_arrow_fails_naming_file_and_line(self):
        code, out = run_check({"src/low/l.cpp": '// x\n#include "high/h.h"\n'})
        self.assertEqual(code, 1, out)
        self.assertIn("src/low/l.cpp:2: low includes high/h.h, from high, a module above it", out)

    def test_a_reach_into_another_modules_detail_fails(self):
        code, out = run_check({"src/high/h.cpp": '#include "low/detail/d.h"\n'})
        self.assertEqual(code, 1, out)
        self.assertIn("high reaches into low's detail/", out)


if __name__ == "__main__":
    unittest.main()
