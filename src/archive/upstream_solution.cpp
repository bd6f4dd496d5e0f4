#include "archive/upstream_solution.h"

#include "compile/abi_header_text.h"
#include "compile/definition_signature.h"
#include "compile/tvm_ffi_adapter.h"
#include "error/error.h"
#include "trace/json_io.h"
#include "trace/json_text.h"

namespace kh::archive {

namespace {

// kharness's public headers a solution may include, shipped with a converted one.
constexpr std::string_view kHeaders[] = {"kharness/kernel.h", "kharness/host_float.h"};

bool mentions(const Solution& s, std::string_view text) {
  for (const SourceFile& f : s.sources) {
    if (f.content.find(text) != std::string::npos) return true;
  }
  return false;
}

// Sources, spec and description of `s` rewritten to export its kharness-ABI entry
// through tvm-ffi. Returns false (and a note) when it cannot be done.
bool convert_binding(const Solution& s, const UpstreamSolutionInputs& in, ordered_json& j,
                     std::string& note) {
  if (in.definition == nullptr) {
    note = "left out: binding 'kharness' and its definition is not in the archive, so it cannot be converted";
    return false;
  }
  const std::string entry_file = s.spec.entry_file();
  const std::string renamed = adapted_entry_path(entry_file);
  const std::string function = s.spec.entry_function();
  const TvmFfiAdapter adapter =
      generate_tvm_ffi_adapter(kernel_signature(*in.definition, function), renamed, s.spec.language);
  ordered_json sources = ordered_json::array();
  sources.push_back({{"path", adapter.file_name}, {"content", adapter.content}});
  for (const ordered_json& f : j["sources"]) {
    ordered_json copy = f;
    if (copy.value("path", "") == entry_file) copy["path"] = renamed;
    sources.push_back(std::move(copy));
  }
  for (std::string_view header : kHeaders) {
    if (header == kHeaders[0] || mentions(s, header))
      sources.push_back({{"path", std::string(header)}, {"content", std::string(*abi_header_text(header))}});
  }
  j["sources"] = std::move(sources);
  j["spec"]["entry_point"] = adapter.file_name + "::" + function;
  j["spec"]["binding"] = "tvm-ffi";
  const std::string why = "Exported by kharness: the kharness-binding entry '" + function +
                          "' runs through the generated tvm-ffi adapter " + adapter.file_name + ".";
  j["description"] = s.description.empty() ? why : s.description + "\n" + why;
  note = "converted from binding 'kharness' to 'tvm-ffi' (" + adapter.file_name + ")";
  return true;
}

// Fields upstream's model requires: an author, a target hardware, non-empty sources.
bool fill_required(ordered_json& j, const UpstreamSolutionInputs& in) {
  bool changed = false;
  if (!j.contains("author") || !j["author"].is_string() || j["author"].get<std::string>().empty()) {
    j["author"] = "unknown";
    changed = true;
  }
  ordered_json& spec = j["spec"];
  if (!spec.contains("target_hardware") || !spec["target_hardware"].is_array() ||
      spec["target_hardware"].empty()) {
    spec["target_hardware"] = in.hardware.empty() ? std::vector<std::string>{"unknown"} : in.hardware;
    changed = true;
  }
  for (ordered_json& f : j["sources"]) {
    if (f.is_object() && f.value("content", "").empty()) {
      f["content"] = "\n";
      changed = true;
    }
  }
  return changed;
}

}  // namespace

UpstreamSolution upstream_solution(std::string_view text, const UpstreamSolutionInputs& in) {
  const Solution s = parse_solution(text, Location{"", 0, "solution"});
  ordered_json j = parse_json_text(text, Location{"", 0, "solution"});
  UpstreamSolution out;
  bool changed = false;
  if (in.rename && s.name != *in.rename) {
    j["name"] = *in.rename;
    out.note = "renamed to '" + *in.rename + "' (another solution has its name)";
    changed = true;
  }
  if (resolved_binding(s) == "kharness") {
    std::string note;
    if (!convert_binding(s, in, j, note)) {
      out.note = note;
      return out;
    }
    out.note += (out.note.empty() ? "" : "; ") + note;
    changed = true;
  }
  changed |= fill_required(j, in);
  out.text = changed ? dump_indented(j) : std::string(text);
  return out;
}

}  // namespace kh::archive
