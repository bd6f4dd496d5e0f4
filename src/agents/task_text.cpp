#include "agents/task_text.h"

#include <fmt/format.h>

namespace kh::agents {

namespace {

// How the entry function's parameters are fixed, in the parent's binding.
std::string signature_rule(const Solution& parent) {
  if (resolved_binding(parent) == "tvm-ffi") {
    return std::string(
               "binding tvm-ffi, as flashinfer-bench runs it: tvm::ffi::TensorView arguments, the "
               "definition's inputs") +
           (parent.spec.uses_destination_passing() ? " then its outputs"
                                                   : ", with the outputs returned as tvm::ffi::Tensor") +
           "; kernels launched on the stream TVMFFIEnvGetStream(device.device_type, device.device_id) gives; "
           "the entry exported with TVM_FFI_DLL_EXPORT_TYPED_FUNC(<entry name>, <function>)";
  }
  return "the entry function's parameters are fixed by the definition: inputs, then outputs, then the stream";
}

std::string goal(const ProposalContext& c) {
  const Hypothesis& h = c.hypothesis;
  std::string s = fmt::format(
      "# Task: a faster `{}`\n\n"
      "Write up to {} candidate solution(s) for the definition `{}` that are faster than the parent "
      "solution `{}` and exactly as correct. Stage: {}.\n\n"
      "## This round's hypothesis\n"
      "- regime: {}\n- direction: {}\n- technique family: {}\n- evidence: {}\n",
      c.definition.name, c.max_candidates, c.definition.name, c.parent.name, c.stage,
      h.regime.empty() ? "all" : h.regime, h.direction, h.family, h.rationale);
  if (!h.directive.empty()) s += fmt::format("- a person's note for this round: {}\n", h.directive);
  s += fmt::format(
      "\nStay within this direction; if you try several candidates, vary the technique family and say "
      "which one each uses. Keep the parent's function signature ({}). Language: {}.\n",
      signature_rule(c.parent), c.parent.spec.language);
  return s;
}

std::string files_format(const ProposalContext& c) {
  return fmt::format(
      "## Files here\n"
      "`definition.json` (shapes, dtypes, reference), `parent/` (the current best: solution.json and "
      "its sources), `profile.md`/`profile.json` (the diagnosis), `hypothesis.json`, {}`history.json` "
      "(what this loop already tried).\n\n"
      "## How to answer\n"
      "Write each candidate into its own folder under `out/`, e.g. `out/two_rows/`, holding its source "
      "files and a `manifest.json`:\n\n"
      "```json\n"
      "{{\n"
      "  \"family\": \"memory_access\",\n"
      "  \"hypothesis\": \"one line: what it improves and why\",\n"
      "  \"language\": \"{}\",\n"
      "  \"entry_point\": \"kernel.{}::{}\",\n"
      "  \"sources\": [\"kernel.{}\"]\n"
      "}}\n"
      "```\n\n"
      "Do not edit anything outside `out/`; only `out/` is read back.\n",
      c.with_skills ? "`skills.md` (rules and advice: read it, especially the forbidden tricks), " : "",
      c.parent.spec.language, c.parent.spec.language == "cuda" ? "cu" : "cpp", c.parent.spec.entry_function(),
      c.parent.spec.language == "cuda" ? "cu" : "cpp");
}

std::string fenced_format(const ProposalContext& c) {
  const std::string ext = c.parent.spec.language == "cuda" ? "cu" : "cpp";
  return fmt::format(
      "## How to answer\n"
      "Answer with fenced code blocks, one per file. Name each file in the fence's info string with "
      "`file=FOLDER/NAME` (or, for C++/CUDA, a first line `// file: FOLDER/NAME`). Each candidate is a "
      "folder holding its sources and a `manifest.json`. Blocks without a file name are ignored. "
      "Example:\n\n"
      "````\n"
      "```json file=two_rows/manifest.json\n"
      "{{\"family\": \"memory_access\", \"hypothesis\": \"one line: what and why\", \"language\": \"{}\", "
      "\"entry_point\": \"kernel.{}::{}\", \"sources\": [\"kernel.{}\"]}}\n"
      "```\n"
      "```{} file=two_rows/kernel.{}\n"
      "...the complete source...\n"
      "```\n"
      "````\n\n"
      "Give complete files, never diffs or elisions.\n",
      c.parent.spec.language, ext, c.parent.spec.entry_function(), ext, ext, ext);
}

std::string rules(const AnswerLimits& l) {
  return fmt::format(
      "\n## Rules the controller enforces\n"
      "- Paths: relative, letters, digits and `._+-` only, no `..`, at most 4 levels.\n"
      "- At most {} files and {} KiB per candidate, {} KiB per file; text only.\n"
      "- The entry file must be listed in `sources` and define the entry function.\n"
      "- Every candidate is built, checked on fresh random inputs against the reference and timed by "
      "the harness; anything in the forbidden-tricks skill fails it. Only the controller promotes.\n",
      l.max_files, l.max_candidate_bytes / 1024, l.max_file_bytes / 1024);
}

}  // namespace

std::string task_markdown(const ProposalContext& context, const AnswerLimits& limits, AnswerChannel channel) {
  return goal(context) + "\n" +
         (channel == AnswerChannel::files ? files_format(context) : fenced_format(context)) + rules(limits);
}

}  // namespace kh::agents
