#!/usr/bin/env python3
"""A cli agent for `kharness optimize`: proposes hand-written candidates by stage.

    kharness optimize --definition D --agent cli \
        --agent-config '{"command": "python3 REPO/bench/loop/propose.py [--operator REPO/operators/D] REPO/operators/D/loop/candidates [MORE...]"}'

kharness runs the command in each request's workspace (docs/agents.md). The script reads
the round's stage and candidate budget from hypothesis.json and the names already tried
from history.json, and writes each candidate of each CANDIDATES/<folder>/ given (the
operator's own, then e.g. bench/loop/cheats/D, cheating kernels the loop must never
promote) whose `stage` file names this stage and whose manifest name was not tried into
out/<its manifest name>/. Every file the manifest's `sources` lists is copied from the
candidate's folder, else from the operator's folder (--operator; by default the folder two
above a `loop/candidates` folder), else from the parent solution (workspace parent/). The
operator's shared headers come before the parent's copies: a candidate is written and
compiled (loop_tools_test.py) against the tree's version of them, and a parent promoted in an
earlier loop holds the version of its day, which may lack what a newer candidate calls. The
parent serves what only it has (a header that lived in its own candidate folder). A candidate
whose source is nowhere is left out, and said so on stderr; the others are still proposed.
"""
import json
import pathlib
import shutil
import sys


def source_path(name: str, folder: pathlib.Path, *fallbacks: pathlib.Path) -> pathlib.Path:
    for base in (folder, *fallbacks):
        if base is not None and (base / name).is_file():
            return base / name
    where = ", ".join(str(b) for b in fallbacks if b is not None)
    raise FileNotFoundError(f"{folder / 'manifest.json'}: source {name!r} is neither in the candidate's folder "
                            f"nor in {where}")


def operator_of(folders: list):
    """The operator folder above the first `.../loop/candidates` given, or None."""
    for folder in folders:
        if folder.name == "candidates" and folder.parent.name == "loop":
            return folder.parent.parent
    return None


def propose(folders: list, ws: pathlib.Path, operator: pathlib.Path = None) -> int:
    hypothesis = json.loads((ws / "hypothesis.json").read_text())
    stage = hypothesis["stage"]
    room = int(hypothesis.get("max_candidates", 8))
    tried = {h["name"] for h in json.loads((ws / "history.json").read_text())}
    operator = operator or operator_of(folders)
    proposed = 0
    every = [p for candidates in folders for p in sorted(candidates.iterdir()) if (p / "manifest.json").is_file()]
    for folder in every:
        if proposed == room:
            break
        manifest = json.loads((folder / "manifest.json").read_text())
        if (folder / "stage").read_text().strip() != stage or manifest["name"] in tried:
            continue
        try:
            paths = {name: source_path(name, folder, operator, ws / "parent") for name in manifest["sources"]}
        except FileNotFoundError as error:
            print(f"propose.py: left out: {error}", file=sys.stderr)
            continue
        out = ws / "out" / manifest["name"]
        out.mkdir(parents=True)
        for name, path in paths.items():
            shutil.copy(path, out / name)
        (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        proposed += 1
    print(f"{stage}: proposed {proposed} candidate(s) from {' '.join(map(str, folders))}")
    return 0


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) == 2 else 2
    args = sys.argv[1:]
    operator = None
    if args[0] == "--operator":
        if len(args) < 3:
            print("usage: propose.py [--operator OPERATOR_DIR] CANDIDATES...", file=sys.stderr)
            return 2
        operator = pathlib.Path(args[1]).resolve()
        args = args[2:]
    folders = [pathlib.Path(a).resolve() for a in args]
    for folder in folders:
        if not folder.is_dir():
            print(f"{folder}: no such folder of candidates", file=sys.stderr)
            return 2
    try:
        return propose(folders, pathlib.Path.cwd(), operator)
    except (OSError, KeyError, ValueError) as error:
        print(f"propose.py: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
