#!/usr/bin/env bash
# Validates what kharness ships: the operators' folders (operator.json, definition, workloads,
# CI workloads), and the example solutions written for them. examples/solutions/upstream/
# holds solutions for the public FlashInfer-Trace set's definitions, which kharness does
# not ship; with a copy of that set, they validate against it too:
#
#   bash scripts/validate_shipped.sh [KHARNESS] [TRACE_SET]
#
# KHARNESS defaults to build/kharness. Exit 0 when everything is valid.
set -euo pipefail
cd "$(dirname "$0")/.."
kharness=${1:-build/kharness}
"$kharness" validate operators/*/ examples/solutions/*.json
if [ -n "${2:-}" ]; then
  "$kharness" validate "$2" examples/solutions/upstream
fi
