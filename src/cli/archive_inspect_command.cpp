#include "cli/archive_inspect_command.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "archive/archive_check.h"
#include "archive/archive_summary.h"
#include "cli/guarded_run.h"

namespace kh::cli {
namespace {

using json = nlohmann::ordered_json;

struct LsArgs {
  std::string archive;
  std::size_t limit = 50;
  bool json = false;
};

struct VerifyArgs {
  std::string archive;
  bool deep = false;
  bool json = false;
};

json run_json(const archive::RunSummary& r) {
  return {{"id", r.id},
          {"origin", r.origin},
          {"rerun_of", r.rerun_of ? json(*r.rerun_of) : json(nullptr)},
          {"definition", r.definition},
          {"solution", r.solution},
          {"solution_content_id", r.solution_content_id},
          {"backend", r.backend},
          {"protocol", r.protocol},
          {"status", r.status},
          {"started_at", r.started_at},
          {"traces", r.traces},
          {"passed", r.passed},
          {"mean_speedup", r.mean_speedup ? json(*r.mean_speedup) : json(nullptr)}};
}

int run_ls(const LsArgs& a) {
  archive::Archive store = archive::Archive::open_existing(a.archive);
  const archive::ArchiveSummary s = archive::summarize_archive(store, a.limit);
  if (a.json) {
    json counts = json::object();
    for (const auto& [table, n] : s.counts) counts[table] = n;
    json runs = json::array();
    for (const archive::RunSummary& r : s.runs) runs.push_back(run_json(r));
    std::cout << json{{"archive", a.archive},
                      {"schema_version", s.schema_version},
                      {"counts", counts},
                      {"runs", runs}}
                     .dump(2)
              << "\n";
    return 0;
  }
  fmt::print("{} (schema v{})\n ", a.archive, s.schema_version);
  for (const auto& [table, n] : s.counts) fmt::print(" {} {}", n, table);
  fmt::print("\n\n{:>6} {:<8} {:<28} {:<28} {:<5} {:<8} {:<12} {:>7} {:>8}  {}\n", "run", "origin",
             "definition", "solution", "bknd", "protocol", "status", "passed", "speedup", "started");
  for (const archive::RunSummary& r : s.runs) {
    fmt::print("{:>6} {:<8} {:<28} {:<28} {:<5} {:<8} {:<12} {:>7} {:>8}  {}\n", r.id, r.origin,
               r.definition.substr(0, 28), r.solution.substr(0, 28), r.backend, r.protocol, r.status,
               fmt::format("{}/{}", r.passed, r.traces),
               r.mean_speedup ? fmt::format("{:.3f}x", *r.mean_speedup) : "-", r.started_at);
  }
  if (s.runs.empty()) fmt::print("(no runs: record some with `kharness eval --archive`)\n");
  return 0;
}

int run_verify(const VerifyArgs& a) {
  archive::Archive store = archive::Archive::open_existing(a.archive);
  const archive::CheckReport r = archive::check_archive(store, a.deep);
  if (a.json) {
    std::cout << json{{"archive", a.archive},
                      {"ok", r.ok()},
                      {"integrity", r.integrity},
                      {"foreign_key_violations", r.foreign_key_violations},
                      {"runs_checked", r.runs_checked},
                      {"blobs_checked", r.blobs_checked},
                      {"blobs_hashed", a.deep},
                      {"traces_recomputed", r.traces_checked},
                      {"decisions_checked", r.decisions_checked},
                      {"unsealed_runs", r.unsealed_runs},
                      {"unnamed_blobs", r.unnamed_blobs},
                      {"stray_temp_files", r.stray_temp_files},
                      {"problems", r.problems},
                      {"more_problems", r.more_problems}}
                     .dump(2)
              << "\n";
  } else {
    fmt::print("integrity: {}\nforeign keys: {} violations\nruns: {} checked\nblobs: {} {}\ntemp files: {}\n",
               r.integrity, r.foreign_key_violations, r.runs_checked, r.blobs_checked,
               a.deep ? "present and hashed" : "present (--deep hashes them)", r.stray_temp_files);
    if (a.deep) {
      fmt::print(
          "rows: {} traces recomputed from their lines, {} decisions against their runs, {} runs "
          "without a seal (written before schema 4), {} blobs no row names\n",
          r.traces_checked, r.decisions_checked, r.unsealed_runs, r.unnamed_blobs);
    }
    for (const std::string& p : r.problems) fmt::print("problem: {}\n", p);
    if (r.more_problems > 0) fmt::print("... and {} more problems\n", r.more_problems);
    fmt::print("{}\n", r.ok() ? "archive is whole" : "archive has problems");
  }
  return r.ok() ? 0 : 1;
}

}  // namespace

void add_archive_ls(CLI::App& archive, int& exit_code) {
  auto args = std::make_shared<LsArgs>();
  CLI::App* cmd = archive.add_subcommand("ls", "Row counts and the latest runs of an archive");
  cmd->add_option("--archive", args->archive, "Archive folder")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("--limit", args->limit, "Runs to list, newest first (50)")->check(CLI::PositiveNumber);
  cmd->add_flag("--json", args->json, "Print as JSON");
  cmd->callback([args, &exit_code] { guarded_run(exit_code, [&] { return run_ls(*args); }); });
}

void add_archive_verify(CLI::App& archive, int& exit_code) {
  auto args = std::make_shared<VerifyArgs>();
  CLI::App* cmd = archive.add_subcommand(
      "verify",
      "Check the index (integrity, foreign keys, schema objects), that every run is complete and every blob "
      "present; --deep recomputes every row from what it was derived from");
  cmd->add_option("--archive", args->archive, "Archive folder")->required()->check(CLI::ExistingDirectory);
  cmd->add_flag("--deep", args->deep,
                "Also hash every blob, recompute every trace row, sample hash and run seal, check every "
                "decision against its runs, and name unknown files");
  cmd->add_flag("--json", args->json, "Print as JSON");
  cmd->callback([args, &exit_code] { guarded_run(exit_code, [&] { return run_verify(*args); }); });
}

}  // namespace kh::cli
