#!/bin/sh
# A scripted coding agent for `kharness optimize --agent cli`: answers with three
# candidates copied from the answer gallery given as $1 (a correct improvement, a wrong
# kernel, a cheating kernel), and prints the API key it sees, which must never reach
# the archive.
set -eu
gallery=$1
test -f TASK.md && test -f parent/solution.json
answer() {  # folder kernel-file entry-function family
  mkdir -p "out/$1"
  cp "$gallery/$2" "out/$1/kernel.cpp"
  printf '{"family": "%s", "hypothesis": "scripted: %s", "language": "cpp", "entry_point": "kernel.cpp::%s", "sources": ["kernel.cpp"]}\n' \
    "$4" "$2" "$3" > "out/$1/manifest.json"
}
if [ -f hypothesis.json ] && grep -q '"stage": "exploit"' hypothesis.json; then
  answer a_fast faster.cpp rmsnorm_fast memory_access
else
  answer a_fast faster.cpp rmsnorm_fast memory_access
  answer b_wrong wrong.cpp rmsnorm_unweighted algorithmic
  answer c_cheat cheating.cpp rmsnorm_scratch data_reuse
fi
echo "cli agent sees ${OPENAI_API_KEY:-no key}"
