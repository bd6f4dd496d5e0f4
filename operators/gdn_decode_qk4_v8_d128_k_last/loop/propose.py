#!/usr/bin/env python3
"""The cli agent of this operator's loop: hand-written candidates, proposed by stage.

kharness optimize runs it in each request's workspace (docs/agents.md): it reads the
stage from hypothesis.json and the names already tried from history.json, and writes
each candidate of that stage not yet tried into out/<name>/ with its manifest (family
and hypothesis), its kernel, and the parent's gdn_decode_core.cuh and gdn_gates.h (the
operator's headers, which the baseline carries too).

    kharness optimize --definition gdn_decode_qk4_v8_d128_k_last --agent cli \
        --agent-config '{"command": "python3 operators/gdn_decode_qk4_v8_d128_k_last/loop/propose.py"}' ...
(the command's path relative to where optimize runs, or absolute).
"""
import json
import pathlib
import shutil
import sys

HERE = pathlib.Path(__file__).resolve().parent


def main() -> int:
    ws = pathlib.Path.cwd()
    hypothesis = json.loads((ws / "hypothesis.json").read_text())
    stage = hypothesis["stage"]
    room = int(hypothesis.get("max_candidates", 8))
    tried = {h["name"] for h in json.loads((ws / "history.json").read_text())}
    headers = [ws / "parent" / name for name in ("gdn_decode_core.cuh", "gdn_gates.h")]
    for header in headers:
        if not header.is_file():
            print(f"{header}: the parent has no {header.name} to build on", file=sys.stderr)
            return 1
    proposed = 0
    for folder in sorted((HERE / "candidates").iterdir()):
        manifest = json.loads((folder / "manifest.json").read_text())
        if (folder / "stage").read_text().strip() != stage or manifest["name"] in tried or proposed == room:
            continue
        out = ws / "out" / manifest["name"]
        out.mkdir(parents=True)
        shutil.copy(folder / "kernel.cu", out / "kernel.cu")
        for header in headers:
            shutil.copy(header, out / header.name)
        (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        proposed += 1
    print(f"{stage}: proposed {proposed} candidate(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
