#!/usr/bin/env bash
# The upstream example solutions validate against the public trace set beside the
# checkout; skipped (exit 77) where that set is absent, as in a user's clone.
#   upstream_examples_validate_test.sh KHARNESS SOURCE_DIR TRACE_SET
set -euo pipefail
kharness=$1 source_dir=$2 set=$3
if [ ! -d "$set" ]; then
  echo "no trace set at $set: skipped"
  exit 77
fi
bash "$source_dir/scripts/validate_shipped.sh" "$kharness" "$set"
