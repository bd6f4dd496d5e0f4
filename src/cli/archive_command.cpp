#include "cli/archive_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "archive/trace_set_export.h"
#include "archive/trace_set_import.h"
#include "cli/archive_inspect_command.h"
#include "cli/guarded_run.h"
#include "error/error.h"

namespace kh::cli {
namespace {

using json = nlohmann::ordered_json;

struct ImportArgs {
  std::string set;
  std::string archive;
  bool json = false;
  bool quiet = false;
};

struct ExportArgs {
  std::string archive;
  std::string out;
  std::string definition;
  bool json = false;
  bool upstream = false;  // the default; the flag says so explicitly
  bool native = false;
};

// A progress line on stderr: redrawn in place on a terminal, every few seconds otherwise.
class ImportProgressLine {
 public:
  void operator()(const archive::ImportProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    const auto every = tty_ ? std::chrono::milliseconds(200) : std::chrono::milliseconds(2000);
    if (now - last_ < every && p.bytes_done < p.bytes_total) return;
    last_ = now;
    const double seconds = std::chrono::duration<double>(now - start_).count();
    const double share =
        p.bytes_total ? static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total) : 1;
    fmt::print(stderr, "{}import {:5.1f}% {} documents ({:.0f}/s) {}{}", tty_ ? "\r" : "", share * 100,
               p.documents, seconds > 0 ? static_cast<double>(p.documents) / seconds : 0.0,
               p.file.substr(0, 60), tty_ ? "\033[K" : "\n");
    std::fflush(stderr);
    drew_ = true;
  }
  ~ImportProgressLine() {
    if (drew_ && tty_) fmt::print(stderr, "\n");
  }

 private:
  bool tty_ = isatty(STDERR_FILENO) != 0;
  bool drew_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
};

json count_json(const archive::KindCount& c) { return {{"read", c.read}, {"added", c.added}}; }

void print_import(const ImportArgs& a, const archive::ImportReport& r) {
  const std::size_t errors = count_errors(r.problems);
  if (a.json) {
    json problems = json::array();
    for (const Diagnostic& d : r.problems)
      problems.push_back({{"severity", std::string(severity_name(d.severity))},
                          {"where", d.where.to_string()},
                          {"message", d.message}});
    const json out = {{"archive", a.archive},
                      {"source", a.set},
                      {"import_id", r.import_id ? json(*r.import_id) : json(nullptr)},
                      {"seconds", r.seconds},
                      {"counts",
                       {{"definitions", count_json(r.definitions)},
                        {"solutions", count_json(r.solutions)},
                        {"workloads", count_json(r.workloads)},
                        {"traces", count_json(r.traces)},
                        {"input_files", count_json(r.input_files)}}},
                      {"errors", errors},
                      {"warnings", r.problems.size() - errors},
                      {"problems", problems}};
    std::cout << out.dump(2) << "\n";
    return;
  }
  fmt::print("imported {} into {} in {:.2f} s\n", a.set, a.archive, r.seconds);
  const auto row = [](const char* name, const archive::KindCount& c) {
    fmt::print("  {:<12} {:>9} read {:>9} new\n", name, c.read, c.added);
  };
  row("definitions", r.definitions);
  row("solutions", r.solutions);
  row("workloads", r.workloads);
  row("traces", r.traces);
  row("input files", r.input_files);
  constexpr std::size_t kShown = 20;
  for (std::size_t i = 0; i < r.problems.size() && i < kShown; ++i)
    fmt::print("{}\n", format_diagnostic(r.problems[i]));
  if (r.problems.size() > kShown)
    fmt::print("... and {} more (--json lists them all)\n", r.problems.size() - kShown);
  fmt::print("{} errors, {} warnings\n", errors, r.problems.size() - errors);
}

int run_import(const ImportArgs& a) {
  archive::Archive store = archive::Archive::open_or_create(a.archive);
  archive::ImportOptions options;
  auto line = std::make_shared<ImportProgressLine>();
  if (!a.quiet) options.on_progress = [line](const archive::ImportProgress& p) { (*line)(p); };
  const archive::ImportReport report = archive::import_trace_set(store, a.set, options);
  line.reset();  // ends the progress line before the summary
  print_import(a, report);
  return count_errors(report.problems) == 0 ? 0 : 1;
}

int run_export(const ExportArgs& a) {
  archive::Archive store = archive::Archive::open_existing(a.archive);
  archive::ExportOptions options;
  if (!a.definition.empty()) options.definition = a.definition;
  options.upstream = !a.native;
  const archive::ExportReport r = archive::export_trace_set(store, a.out, options);
  if (a.json) {
    const json out = {{"archive", a.archive},
                      {"out", a.out},
                      {"definitions", r.definitions},
                      {"workloads", r.workloads},
                      {"solutions", r.solutions},
                      {"traces", r.traces},
                      {"input_files", r.input_files},
                      {"files", r.files},
                      {"upstream", options.upstream},
                      {"solutions_converted", r.converted},
                      {"solutions_left_out", r.left_out},
                      {"warnings", r.warnings},
                      {"notes", r.notes}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  fmt::print(
      "exported {} definitions, {} workloads, {} solutions, {} traces, {} input files to {} ({} files)\n",
      r.definitions, r.workloads, r.solutions, r.traces, r.input_files, a.out, r.files);
  if (options.upstream && (r.converted > 0 || r.left_out > 0))
    fmt::print("for flashinfer-bench: {} solution(s) changed, {} left out\n", r.converted, r.left_out);
  for (const std::string& n : r.notes) fmt::print("note: {}\n", n);
  for (const std::string& w : r.warnings) fmt::print("warning: {}\n", w);
  return 0;
}

void add_import(CLI::App& parent, int& exit_code) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "import", "Read a FlashInfer-Trace set (definitions, workloads, solutions, traces) into the archive");
  cmd->add_option("set", args->set, "Trace-set folder")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("--archive", args->archive, "Archive folder (created when absent)")->required();
  cmd->add_flag("--json", args->json, "Print the counts and every problem as JSON");
  cmd->add_flag("--quiet", args->quiet, "No progress on stderr");
  cmd->callback([args, &exit_code] { guarded_run(exit_code, [&] { return run_import(*args); }); });
}

void add_export(CLI::App& parent, int& exit_code) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = parent.add_subcommand("export", "Write the archive out as a FlashInfer-Trace set");
  cmd->add_option("out", args->out, "Output folder (must be absent or empty)")->required();
  cmd->add_option("--archive", args->archive, "Archive folder")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("--definition", args->definition,
                  "Only this definition, its workloads, solutions and traces");
  cmd->add_flag("--json", args->json, "Print the counts as JSON");
  auto* upstream =
      cmd->add_flag("--upstream", args->upstream,
                    "A set flashinfer-bench loads and runs as it is (the default): upstream statuses, "
                    "kharness-binding solutions converted to tvm-ffi");
  auto* native = cmd->add_flag("--native", args->native,
                               "kharness's own forms instead (REWARD_HACK statuses, kharness bindings)");
  upstream->excludes(native);
  cmd->callback([args, &exit_code] { guarded_run(exit_code, [&] { return run_export(*args); }); });
}

}  // namespace

void register_archive(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("archive", "The archive: import, export, list and verify");
  cmd->require_subcommand(1);
  add_import(*cmd, exit_code);
  add_export(*cmd, exit_code);
  add_archive_ls(*cmd, exit_code);
  add_archive_verify(*cmd, exit_code);
}

}  // namespace kh::cli
