#include "cli/validate_command.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cli/guarded_run.h"
#include "cli/workload_source.h"
#include "error/error.h"
#include "eval/operator_library.h"
#include "trace/trace_set.h"
#include "trace/validate_set.h"

namespace kh::cli {
namespace {

struct ValidateArgs {
  std::vector<std::string> paths;
  std::string operators;  // --operators: kharness's operator library; default: the shipped one
  bool json = false;
  bool strict = false;
};

namespace fs = std::filesystem;

// The paths to load as FlashInfer-Trace files, and the operator folders (operators/<definition>/)
// among the arguments: an operator's operator.json is kharness's own manifest, checked the way the
// operator library reads it, and the folder's other .json / .jsonl files are trace files.
struct Inputs {
  std::vector<fs::path> trace_paths;
  std::vector<fs::path> operators;
};

Inputs sort_inputs(const std::vector<std::string>& args) {
  Inputs in;
  for (const std::string& arg : args) {
    const fs::path p(arg);
    std::error_code ec;
    if (p.filename() == "operator.json" && fs::is_regular_file(p, ec)) {
      in.operators.push_back(p.parent_path().empty() ? fs::path(".") : p.parent_path());
    } else if (fs::is_directory(p, ec) && fs::is_regular_file(p / "operator.json", ec)) {
      in.operators.push_back(p);
      std::vector<fs::path> files;
      for (const fs::directory_entry& f : fs::directory_iterator(p, ec)) {
        const fs::path ext = f.path().extension();
        if (f.is_regular_file(ec) && f.path().filename() != "operator.json" &&
            (ext == ".json" || ext == ".jsonl"))
          files.push_back(f.path());
      }
      std::sort(files.begin(), files.end());
      in.trace_paths.insert(in.trace_paths.end(), files.begin(), files.end());
    } else {
      in.trace_paths.push_back(p);
    }
  }
  return in;
}

// The definitions the files name without holding them that kharness's operator library ships
// (operators/<name>/definition.json): they join the set, so that a lone solution or workload file
// of a shipped operator validates without its trace set. A library that cannot be read adds none.
std::vector<fs::path> shipped_definitions(const TraceSet& set, const std::string& operators) {
  std::set<std::string> wanted;
  auto want = [&](const std::string& name) {
    if (!name.empty() && set.find_definition(name) == nullptr) wanted.insert(name);
  };
  for (const auto& e : set.solutions()) want(e.value.definition);
  for (const auto& e : set.workloads()) want(e.value.definition);
  for (const auto& e : set.traces()) want(e.value.definition);
  std::vector<fs::path> out;
  if (wanted.empty()) return out;
  OperatorLibrary ops;
  try {
    ops = operator_library(operators);
  } catch (const Error&) {
    return out;  // the unknown definitions stay errors, each naming its file
  }
  std::error_code ec;
  for (const std::string& name : wanted) {
    const OperatorEntry* entry = ops.find(name);
    if (entry != nullptr && fs::is_regular_file(entry->dir / "definition.json", ec))
      out.push_back(entry->dir / "definition.json");
  }
  return out;
}

void check_operators(const std::vector<fs::path>& dirs, std::vector<Diagnostic>& out) {
  for (const fs::path& dir : dirs) {
    try {
      (void)OperatorLibrary::read_operator(dir);
    } catch (const Error& e) {
      out.push_back(diagnostic_from(e));
    }
  }
}

nlohmann::ordered_json counts_json(const TraceSet& set, std::size_t operators) {
  return {{"definitions", set.definitions().size()},
          {"solutions", set.solutions().size()},
          {"workloads", set.workloads().size()},
          {"traces", set.traces().size()},
          {"operators", operators}};
}

nlohmann::ordered_json diagnostic_json(const Diagnostic& d) {
  return {{"file", d.where.file}, {"line", d.where.line}, {"field", d.where.field}, {"message", d.message}};
}

void print_json(const TraceSet& set, std::size_t operators, const std::vector<fs::path>& shipped,
                const std::vector<Diagnostic>& ds) {
  nlohmann::ordered_json errors = nlohmann::ordered_json::array();
  nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
  for (const Diagnostic& d : ds)
    (d.severity == Severity::error ? errors : warnings).push_back(diagnostic_json(d));
  nlohmann::ordered_json out;
  out["counts"] = counts_json(set, operators);
  out["shipped_definitions"] = nlohmann::ordered_json::array();
  for (const fs::path& d : shipped) out["shipped_definitions"].push_back(d.string());
  out["errors"] = errors;
  out["warnings"] = warnings;
  out["ok"] = errors.empty();
  std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void print_text(const TraceSet& set, std::size_t operators, const std::vector<fs::path>& shipped,
                const std::vector<Diagnostic>& ds) {
  for (const fs::path& d : shipped) fmt::print("definition from kharness's operators: {}\n", d.string());
  fmt::print("loaded {} definitions, {} solutions, {} workloads, {} traces", set.definitions().size(),
             set.solutions().size(), set.workloads().size(), set.traces().size());
  fmt::print("{}\n", operators == 0 ? ""
                                    : fmt::format("; checked {} operator folder{}", operators,
                                                  operators == 1 ? "" : "s"));
  const std::size_t errors = count_errors(ds);
  // Errors first: they decide the exit status, and warnings can be many (missing blobs).
  for (Severity s : {Severity::error, Severity::warning})
    for (const Diagnostic& d : ds)
      if (d.severity == s) fmt::print("{}\n", format_diagnostic(d));
  fmt::print("{} error{}, {} warning{}\n", errors, errors == 1 ? "" : "s", ds.size() - errors,
             ds.size() - errors == 1 ? "" : "s");
}

int run_validate(const ValidateArgs& args) {
  Inputs in = sort_inputs(args.paths);
  TraceSet set = load_paths(in.trace_paths);
  const std::vector<fs::path> shipped = shipped_definitions(set, args.operators);
  if (!shipped.empty()) {
    in.trace_paths.insert(in.trace_paths.end(), shipped.begin(), shipped.end());
    set = load_paths(in.trace_paths);
  }
  ValidateOptions options;
  options.strict = args.strict;
  std::vector<Diagnostic> ds = validate_set(set, options);
  check_operators(in.operators, ds);
  if (args.json)
    print_json(set, in.operators.size(), shipped, ds);
  else
    print_text(set, in.operators.size(), shipped, ds);
  return count_errors(ds) == 0 ? 0 : 1;
}

}  // namespace

void register_validate(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Check FlashInfer-Trace files: definitions (.json), solutions (.json), workloads and traces (.jsonl), "
      "trace-set folders, or kharness operator folders (operators/<definition>/: operator.json as the "
      "operator library reads it, the folder's .json and .jsonl files as trace files). A definition the "
      "files name but do not hold is taken from kharness's operators when it ships one. "
      "Exit status: 0 valid, 1 invalid, 2 usage error.");
  cmd->add_option("paths", args->paths, "files, trace-set folders or operator folders")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_flag("--json", args->json,
                "print one JSON object {counts, shipped_definitions, errors, warnings, ok}");
  cmd->add_option("--operators", args->operators,
                  "Folder of kharness operators to take missing definitions from (default: the shipped one)");
  cmd->add_flag("--strict", args->strict, "treat missing safetensors blobs as errors");
  cmd->callback([args, &exit_code] { guarded_run(exit_code, [&] { return run_validate(*args); }); });
}

}  // namespace kh::cli
