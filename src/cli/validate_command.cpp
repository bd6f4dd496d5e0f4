#include "cli/validate_command.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/guarded_run.h"
#include "trace/trace_set.h"
#include "trace/validate_set.h"

namespace kh::cli {
namespace {

struct ValidateArgs {
  std::vector<std::string> paths;
  bool json = false;
  bool strict = false;
};

nlohmann::ordered_json counts_json(const TraceSet& set) {
  return {{"definitions", set.definitions().size()},
          {"solutions", set.solutions().size()},
          {"workloads", set.workloads().size()},
          {"traces", set.traces().size()}};
}

nlohmann::ordered_json diagnostic_json(const Diagnostic& d) {
  return {{"file", d.where.file}, {"line", d.where.line}, {"field", d.where.field}, {"message", d.message}};
}

void print_json(const TraceSet& set, const std::vector<Diagnostic>& ds) {
  nlohmann::ordered_json errors = nlohmann::ordered_json::array();
  nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
  for (const Diagnostic& d : ds)
    (d.severity == Severity::error ? errors : warnings).push_back(diagnostic_json(d));
  nlohmann::ordered_json out;
  out["counts"] = counts_json(set);
  out["errors"] = errors;
  out["warnings"] = warnings;
  out["ok"] = errors.empty();
  std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void print_text(const TraceSet& set, const std::vector<Diagnostic>& ds) {
  fmt::print("loaded {} definitions, {} solutions, {} workloads, {} traces\n", set.definitions().size(),
             set.solutions().size(), set.workloads().size(), set.traces().size());
  const std::size_t errors = count_errors(ds);
  // Errors first: they decide the exit status, and warnings can be many (missing blobs).
  for (Severity s : {Severity::error, Severity::warning})
    for (const Diagnostic& d : ds)
      if (d.severity == s) fmt::print("{}\n", format_diagnostic(d));
  fmt::print("{} error{}, {} warning{}\n", errors, errors == 1 ? "" : "s", ds.size() - errors,
             ds.size() - errors == 1 ? "" : "s");
}

int run_validate(const ValidateArgs& args) {
  std::vector<std::filesystem::path> paths(args.paths.begin(), args.paths.end());
  const TraceSet set = load_paths(paths);
  ValidateOptions options;
  options.strict = args.strict;
  const std::vector<Diagnostic> ds = validate_set(set, options);
  if (args.json)
    print_json(set, ds);
  else
    print_text(set, ds);
  return count_errors(ds) == 0 ? 0 : 1;
}

}  // namespace

void register_validate(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Check FlashInfer-Trace files: definitions (.json), solutions (.json), workloads and traces (.jsonl), "
      "or trace-set folders. Exit status: 0 valid, 1 invalid, 2 usage error.");
  cmd->add_option("paths", args->paths, "files or trace-set folders")->required()->check(CLI::ExistingPath);
  cmd->add_flag("--json", args->json, "print one JSON object {counts, errors, warnings, ok}");
  cmd->add_flag("--strict", args->strict, "treat missing safetensors blobs as errors");
  cmd->callback([args, &exit_code] { guarded_run(exit_code, [&] { return run_validate(*args); }); });
}

}  // namespace kh::cli
