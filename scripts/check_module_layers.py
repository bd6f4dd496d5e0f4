#!/usr/bin/env python3
"""Prints the module graph of src/ and fails on a wrong-way include.

The modules and their order come from src/CMakeLists.txt, lowest first, so the one
list there is both the build order and the law. A file in module M may include:
  - its own module's headers, detail/ included;
  - the public headers of a module listed below M.
It may not include a module listed above M (a back-arrow) nor another module's
detail/ folder. Since the order is total, no back-arrow also means no cycle.

Usage: check_module_layers.py [--root DIR] [--quiet] [--stamp FILE]
Exit status: 0 when the house holds, 1 with one line per offending include.
"""
import argparse
import collections
import pathlib
import re
import sys

SOURCE_SUFFIXES = {".h", ".cpp", ".cu", ".cuh", ".in"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SUBDIRECTORY = re.compile(r"^\s*add_subdirectory\(\s*([^\s)]+)")


def module_order(root):
    """Modules as listed in src/CMakeLists.txt, lowest first ("operators" included)."""
    order = []
    for line in (root / "src/CMakeLists.txt").read_text().splitlines():
        match = SUBDIRECTORY.match(line)
        if match:
            order.append(pathlib.PurePosixPath(match.group(1).split("}")[-1]).name)
    return order


def module_of(relative, modules):
    """The module a path under src/ (or an include path) belongs to, or None."""
    head = relative.split("/", 1)[0]
    return head if head in modules else None


def source_files(root, modules):
    for module in modules:
        base = root / "src" / module if module != "operators" else root / "operators"
        for path in sorted(base.rglob("*")):
            if path.suffix in SOURCE_SUFFIXES and path.is_file():
                yield module, path


def check(root):
    order = module_order(root)
    rank = {m: i for i, m in enumerate(order)}
    arrows = collections.Counter()
    problems = []
    for module, path in source_files(root, order):
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            target = module_of(match.group(1), rank) if match else None
            if target is None or target == module:
                continue
            arrows[(module, target)] += 1
            where = f"{path.relative_to(root)}:{number}"
            if rank[target] > rank[module]:
                problems.append(f"{where}: {module} includes {match.group(1)}, from {target}, a module above it")
            elif "/detail/" in match.group(1):
                problems.append(f"{where}: {module} reaches into {target}'s detail/: {match.group(1)}")
    return order, arrows, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent)
    parser.add_argument("--quiet", action="store_true", help="print only the problems")
    parser.add_argument("--stamp", type=pathlib.Path, help="touch this file when the check passes")
    args = parser.parse_args()
    order, arrows, problems = check(args.root)
    if not args.quiet:
        print("modules, lowest first:", " ".join(order))
        for module in order:
            below = sorted((t for (m, t) in arrows if m == module), key=order.index)
            print(f"  {module:10} -> " + ", ".join(f"{t} ({arrows[(module, t)]})" for t in below))
        print(f"{len(problems)} back-arrows or detail/ reaches")
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems and args.stamp:
        args.stamp.touch()
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
