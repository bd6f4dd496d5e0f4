#!/bin/sh
# A scripted coding agent: reads the workspace, edits a copy of the parent's source and
# answers in out/. It also prints the API key it can see, as a careless agent might:
# the cli agent must redact it from everything it keeps.
set -eu
test -f TASK.md && test -f skills.md && test -f hypothesis.json
mkdir -p out/one_pass
sed 's/#define ROWS_PER_CHUNK 4/#define ROWS_PER_CHUNK 16/' parent/baseline.cpp > out/one_pass/kernel.cpp
cat > out/one_pass/manifest.json <<'JSON'
{"family": "cache_blocking", "hypothesis": "bigger chunks amortise the conversion loop",
 "language": "cpp", "entry_point": "kernel.cpp::rmsnorm_baseline", "sources": ["kernel.cpp"]}
JSON
echo '{"usd": 0.0123, "input_tokens": 1500, "output_tokens": 300}' > cost.json
echo "agent sees key ${OPENAI_API_KEY:-none}"
echo "done" >&2
