#!/usr/bin/env python3
"""The tests kharness_add_test marks SERIAL carry CTest's RUN_SERIAL property, and no
test carries a label that is really a property name: gtest_discover_tests once turned an
empty LABELS value into the label "RUN_SERIAL", and the timing tests ran beside others.

Usage: serial_tests_test.py BUILD_DIR"""
import json
import subprocess
import sys

SERIAL_SUITES = ("PythonEndToEnd.", "CpuEndToEnd.", "AblateCommand.")


def main():
    shown = subprocess.run(["ctest", "--test-dir", sys.argv[1], "--show-only=json-v1"],
                           capture_output=True, text=True, check=True)
    problems, serial = [], 0
    for test in json.loads(shown.stdout)["tests"]:
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels = props.get("LABELS", [])
        if "RUN_SERIAL" in labels:
            problems.append(f"{test['name']}: RUN_SERIAL is a label, not a property")
        if test["name"].startswith(SERIAL_SUITES):
            if props.get("RUN_SERIAL") is True:
                serial += 1
            else:
                problems.append(f"{test['name']}: marked SERIAL but RUN_SERIAL is not set")
    for p in problems:
        print(p)
    print(f"{serial} tests of {', '.join(SERIAL_SUITES)} run alone; {len(problems)} problems")
    return 1 if problems or serial == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
