#!/usr/bin/env python3
"""Wraps test solution sources into a FlashInfer-Trace Solution JSON for `kharness eval`.

usage: solution_json.py DEFINITION LANGUAGE ENTRY_FILE [OTHER_SOURCES...] > solution.json
The entry function is `rmsnorm`-style: the entry file's stem names nothing; pass it as
ENTRY_FILE::FUNCTION, e.g. correct.cu::rmsnorm.
"""
import json
import os
import sys


def main() -> None:
    definition, language, entry = sys.argv[1:4]
    entry_file, function = entry.split("::")
    sources = [entry_file] + sys.argv[4:]
    solution = {
        "name": os.path.splitext(os.path.basename(entry_file))[0],
        "definition": definition,
        "author": "kharness-tests",
        "spec": {
            "language": language,
            "target_hardware": ["H200"],
            "entry_point": f"{os.path.basename(entry_file)}::{function}",
            "dependencies": [],
            "destination_passing_style": True,
            "binding": "kharness",
        },
        "sources": [{"path": os.path.basename(p), "content": open(p).read()} for p in sources],
    }
    json.dump(solution, sys.stdout, indent=2)


if __name__ == "__main__":
    main()
