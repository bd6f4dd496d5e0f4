#!/usr/bin/env python3
"""The solution JSON of a loop candidate, by its manifest name, for `kharness eval`: how a
loop's promoted candidate is swept over all of its operator's workloads afterwards.

    python3 bench/loop/candidate_solution.py operators/D/loop/candidates NAME > solution.json
    python3 bench/loop/candidate_solution.py bench/loop/cheats/D NAME operators/D > cheat.json

Sources come from the candidate's folder, or, where it lacks one, from the operator's
folder (the parent the loop started from is the operator's baseline, whose headers live
there), as propose.py gave them to the loop. Candidates kept elsewhere (the cheat probes)
name their operator's folder as a third argument.
"""
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from propose import source_path  # noqa: E402


def candidate_solution(candidates: pathlib.Path, name: str, operator: pathlib.Path = None) -> dict:
    operator = operator or candidates.resolve().parent.parent
    definition = json.loads((operator / "definition.json").read_text())["name"]
    for folder in sorted(p for p in candidates.iterdir() if (p / "manifest.json").is_file()):
        manifest = json.loads((folder / "manifest.json").read_text())
        if manifest.get("name") != name:
            continue
        return {
            "name": name,
            "definition": definition,
            "author": "kharness-loop",
            "description": f"{manifest['family']}: {manifest['hypothesis']}",
            "spec": {
                "language": manifest["language"],
                "target_hardware": ["H200"],
                "entry_point": manifest["entry_point"],
                "dependencies": [],
                "destination_passing_style": True,
                "binding": "kharness",
            },
            "sources": [{"path": s, "content": source_path(s, folder, operator).read_text()}
                        for s in manifest["sources"]],
        }
    raise KeyError(f"{candidates}: no candidate's manifest.json is named {name!r}")


def main() -> int:
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip())
        return 0 if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help") else 2
    operator = pathlib.Path(sys.argv[3]) if len(sys.argv) == 4 else None
    try:
        solution = candidate_solution(pathlib.Path(sys.argv[1]), sys.argv[2], operator)
    except (OSError, KeyError, ValueError) as error:
        print(f"candidate_solution.py: {error}", file=sys.stderr)
        return 1
    json.dump(solution, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
