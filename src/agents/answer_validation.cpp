#include "agents/answer_validation.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "agents/answer_manifest.h"
#include "agents/answer_paths.h"
#include "error/error.h"
#include "trace/json_io.h"
#include "trace/validate.h"

namespace kh::agents {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kExcerptBytes = 600;

// A candidate that cannot be used: the reason, thrown up to the one place that records it.
struct Rejection {
  std::string reason;
};

std::string read_bytes(const fs::path& p, std::size_t limit) {
  std::ifstream in(p, std::ios::binary);
  std::string text(limit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

bool inside(const fs::path& folder, const fs::path& p) {
  const fs::path rel = p.lexically_relative(folder);
  return !rel.empty() && *rel.begin() != "..";
}

// The file behind a declared path, after the symlink check.
fs::path resolve_declared(const fs::path& folder, const std::string& rel) {
  if (auto why = path_problem(rel)) throw Rejection{fmt::format("source path '{}' {}", rel, *why)};
  const fs::path p = folder / rel;
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(p, ec);
  if (ec || !fs::exists(st)) throw Rejection{fmt::format("source '{}' is declared but missing", rel)};
  fs::path real = fs::weakly_canonical(p, ec);
  if (ec || !inside(fs::weakly_canonical(folder), real)) {
    throw Rejection{fmt::format("source '{}' is a symlink out of the candidate's folder", rel)};
  }
  if (!fs::is_regular_file(real)) throw Rejection{fmt::format("source '{}' is not a regular file", rel)};
  return real;
}

bool extension_fits(const std::string& language, const fs::path& file, bool entry) {
  const std::string ext = file.extension().string();
  const bool cpp_source = ext == ".cpp" || ext == ".cc" || ext == ".cxx";
  const bool header = ext == ".h" || ext == ".hpp" || ext == ".inc" || ext == ".cuh";
  if (language == "cuda") return entry ? ext == ".cu" : (ext == ".cu" || cpp_source || header);
  return entry ? cpp_source : (cpp_source || (header && ext != ".cuh"));
}

void check_language(const AnswerManifest& m, const ProposalContext& ctx, const AnswerLimits& limits) {
  std::vector<std::string> allowed = limits.languages;
  if (allowed.empty()) allowed.push_back(ctx.parent.spec.language);
  if (std::find(allowed.begin(), allowed.end(), m.language) == allowed.end()) {
    throw Rejection{fmt::format("language '{}' is not accepted this round (accepted: {})", m.language,
                                fmt::join(allowed, ", "))};
  }
}

void check_entry(const AnswerManifest& m, const std::vector<SourceFile>& sources) {
  const auto sep = m.entry_point.rfind("::");
  if (sep == std::string::npos) throw Rejection{"entry_point must be FILE::FUNCTION"};
  const std::string file = m.entry_point.substr(0, sep);
  const std::string function = m.entry_point.substr(sep + 2);
  const auto it =
      std::find_if(sources.begin(), sources.end(), [&](const SourceFile& s) { return s.path == file; });
  if (it == sources.end())
    throw Rejection{fmt::format("entry file '{}' is not among the declared sources", file)};
  if (!extension_fits(m.language, file, true)) {
    throw Rejection{fmt::format("entry file '{}' has no {} source extension", file, m.language)};
  }
  const std::regex defined("\\b" + std::regex_replace(function, std::regex(R"([^A-Za-z0-9_])"), "") +
                           R"(\s*\()");
  if (function.empty() || !std::regex_search(it->content, defined)) {
    throw Rejection{fmt::format("entry function '{}' does not appear in '{}'", function, file)};
  }
}

std::vector<SourceFile> read_sources(const fs::path& folder, const AnswerManifest& m,
                                     const AnswerLimits& limits) {
  if (m.sources.size() > limits.max_files) {
    throw Rejection{
        fmt::format("{} source files, more than the limit of {}", m.sources.size(), limits.max_files)};
  }
  std::vector<SourceFile> sources;
  std::size_t total = 0;
  for (const std::string& rel : m.sources) {
    const fs::path real = resolve_declared(folder, rel);
    if (!extension_fits(m.language, rel, false)) {
      throw Rejection{
          fmt::format("source '{}' has an extension that is not {} source or header", rel, m.language)};
    }
    std::string text = read_bytes(real, limits.max_file_bytes);
    if (text.size() > limits.max_file_bytes) {
      throw Rejection{
          fmt::format("source '{}' is larger than the limit of {} bytes", rel, limits.max_file_bytes)};
    }
    if (text.find('\0') != std::string::npos) throw Rejection{fmt::format("source '{}' is not text", rel)};
    total += text.size();
    if (total > limits.max_candidate_bytes) {
      throw Rejection{
          fmt::format("sources exceed the limit of {} bytes per candidate", limits.max_candidate_bytes)};
    }
    sources.push_back(SourceFile{rel, std::move(text), {}});
  }
  return sources;
}

Solution assemble(const AnswerManifest& m, std::vector<SourceFile> sources, const ProposalContext& ctx,
                  const std::string& agent, const std::string& folder_name) {
  // A candidate keeps its parent's binding (tvm-ffi keeps a loop's winners runnable by
  // flashinfer-bench as they are), or kharness's C ABI (include/kharness/kernel.h).
  const std::string parent_binding = resolved_binding(ctx.parent);
  const bool same_language = m.language == ctx.parent.spec.language;
  nlohmann::ordered_json spec = {
      {"language", m.language},
      {"entry_point", m.entry_point},
      {"binding", same_language && !parent_binding.empty() ? parent_binding : "kharness"}};
  if (same_language && !ctx.parent.spec.uses_destination_passing()) spec["destination_passing_style"] = false;
  if (m.language == ctx.parent.spec.language && !ctx.parent.spec.target_hardware.empty()) {
    spec["target_hardware"] = ctx.parent.spec.target_hardware;
  }
  nlohmann::ordered_json j = {
      {"name", m.name.empty() ? fmt::format("{}~{}-{}", ctx.parent.name, agent, folder_name) : m.name},
      {"definition", ctx.definition.name},
      {"author", agent},
      {"description", m.description.empty() ? m.hypothesis : m.description},
      {"spec", spec},
      {"sources", nlohmann::ordered_json::array()}};
  for (auto& s : sources) j["sources"].push_back({{"path", s.path}, {"content", std::move(s.content)}});
  Solution solution = read_solution(j);
  for (const Diagnostic& d : validate_solution(solution)) {
    if (d.severity == Severity::error) throw Rejection{"invalid solution: " + format_diagnostic(d)};
  }
  return solution;
}

Candidate read_candidate(const fs::path& folder, const std::string& label, const ProposalContext& ctx,
                         const std::string& agent, const AnswerLimits& limits) {
  const fs::path manifest_file = folder / "manifest.json";
  if (fs::is_symlink(manifest_file)) throw Rejection{"manifest.json is a symlink"};
  if (!fs::is_regular_file(manifest_file)) throw Rejection{"no manifest.json in the candidate's folder"};
  AnswerManifest m;
  try {
    m = parse_answer_manifest(read_bytes(manifest_file, std::size_t{64} * 1024), label + "/manifest.json");
  } catch (const Error& e) {
    throw Rejection{fmt::format("bad manifest: {}", e.what())};
  }
  check_language(m, ctx, limits);
  std::vector<SourceFile> sources = read_sources(folder, m, limits);
  check_entry(m, sources);
  return Candidate{assemble(m, std::move(sources), ctx, agent, label), m.family, m.hypothesis};
}

std::string excerpt_of(const fs::path& folder) {
  const fs::path manifest = folder / "manifest.json";
  if (fs::is_regular_file(manifest) && !fs::is_symlink(manifest)) return read_bytes(manifest, kExcerptBytes);
  std::string listing = "files:";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) listing += " " + e.path().filename().string();
  return listing.substr(0, kExcerptBytes);
}

// The candidate folders in a fixed order: out/ itself when it holds a manifest, else
// its subfolders by name.
std::vector<std::pair<fs::path, std::string>> candidate_folders(const fs::path& out_dir) {
  std::vector<std::pair<fs::path, std::string>> folders;
  if (fs::exists(out_dir / "manifest.json")) {
    folders.emplace_back(out_dir, "out");
    return folders;
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(out_dir, ec)) {
    if (e.is_directory() && !e.is_symlink()) folders.emplace_back(e.path(), e.path().filename().string());
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

}  // namespace

AnswerReading read_answer(const fs::path& out_dir, const ProposalContext& context, const std::string& agent,
                          const AnswerLimits& limits) {
  AnswerReading r;
  const auto folders = candidate_folders(out_dir);
  for (const auto& [folder, label] : folders) {
    if (r.candidates.size() >= context.max_candidates) {
      r.rejected.push_back(
          {fmt::format("candidate '{}': more than max_candidates ({})", label, context.max_candidates),
           excerpt_of(folder)});
      continue;
    }
    try {
      r.candidates.push_back(read_candidate(folder, label, context, agent, limits));
    } catch (const Rejection& why) {
      r.rejected.push_back({fmt::format("candidate '{}': {}", label, why.reason), excerpt_of(folder)});
    }
  }
  if (folders.empty()) {
    r.rejected.push_back({"no candidate in out/ (expected out/<name>/manifest.json with its sources)", ""});
  }
  return r;
}

}  // namespace kh::agents
