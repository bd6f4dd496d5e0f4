// `kharness rerun RUN_ID --archive DIR`: prints a rerun's numbers beside the recorded
// ones. The work is record/rerun.h's.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/archive_command.h"
#include "cli/guarded_run.h"
#include "cli/invocation.h"
#include "record/rerun.h"

namespace kh::cli {
namespace {

using json = nlohmann::ordered_json;

struct RerunArgs {
  std::int64_t run_id = 0;
  std::string archive;
  bool json = false;
  bool fresh_seeds = false;
  bool no_record = false;
};

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json facts_json(const archive::TraceFacts& f) {
  return {{"status", f.status},
          {"latency_ms", optional_number(f.latency_ms)},
          {"reference_latency_ms", optional_number(f.reference_latency_ms)},
          {"speedup", optional_number(f.speedup)}};
}

std::optional<double> latency_ratio(const record::RerunWorkload& w) {
  if (!w.before || !w.before->latency_ms || !w.now.latency_ms || *w.before->latency_ms <= 0)
    return std::nullopt;
  return *w.now.latency_ms / *w.before->latency_ms;
}

std::string number(const std::optional<double>& v, const char* suffix = "") {
  return v ? fmt::format("{:.4f}{}", *v, suffix) : "-";
}

void print_json(const record::RerunResult& r) {
  json rows = json::array();
  for (const record::RerunWorkload& w : r.workloads) {
    rows.push_back({{"workload", w.workload_uuid},
                    {"before", w.before ? facts_json(*w.before) : json(nullptr)},
                    {"now", facts_json(w.now)},
                    {"latency_ratio", optional_number(latency_ratio(w))}});
  }
  const json out = {{"run_id", r.run_id},
                    {"new_run_id", r.new_run_id ? json(*r.new_run_id) : json(nullptr)},
                    {"definition", r.definition},
                    {"solution", r.solution},
                    {"backend", r.backend},
                    {"protocol", r.protocol},
                    {"seed", r.seed ? json(*r.seed) : json(nullptr)},
                    {"same_seed", r.same_seed},
                    {"statuses_equal", r.statuses_equal()},
                    {"workloads", rows}};
  std::cout << out.dump(2) << "\n";
}

void print_table(const record::RerunResult& r) {
  fmt::print("\nrerun of run {}: {} on {} ({} backend, {} protocol, {} seed){}\n", r.run_id, r.solution,
             r.definition, r.backend, r.protocol, r.same_seed ? "the recorded" : "a fresh",
             r.new_run_id ? fmt::format(", recorded as run {}", *r.new_run_id) : "");
  fmt::print("{:<10} {:<20} {:<20} {:>12} {:>12} {:>7} {:>9} {:>9}\n", "workload", "status before",
             "status now", "before_ms", "now_ms", "ratio", "spd_bfr", "spd_now");
  std::size_t differ = 0;
  for (const record::RerunWorkload& w : r.workloads) {
    const std::string before = w.before ? w.before->status : "-";
    differ += before != w.now.status ? 1 : 0;
    fmt::print("{:<10} {:<20} {:<20} {:>12} {:>12} {:>7} {:>9} {:>9}\n", w.workload_uuid.substr(0, 8), before,
               w.now.status, number(w.before ? w.before->latency_ms : std::nullopt), number(w.now.latency_ms),
               latency_ratio(w) ? fmt::format("{:.2f}", *latency_ratio(w)) : "-",
               number(w.before ? w.before->speedup : std::nullopt, "x"), number(w.now.speedup, "x"));
  }
  if (differ == 0) {
    fmt::print("all {} statuses as recorded\n", r.workloads.size());
  } else {
    fmt::print("{} of {} statuses differ from the recorded ones\n", differ, r.workloads.size());
  }
}

void progress_line(const EvalProgress& p) {
  fmt::print(stderr, "rerun {}/{} {} {}\n", p.done, p.total, p.workload.substr(0, 8), p.status);
}

int run_rerun(const RerunArgs& a) {
  archive::Archive store = archive::Archive::open_existing(a.archive);
  record::RerunOptions options;
  options.fresh_seeds = a.fresh_seeds;
  options.record = !a.no_record;
  options.command_line = invocation();
  if (!a.json) options.on_progress = progress_line;
  const record::RerunResult result = record::rerun(store, a.run_id, options);
  if (a.json) {
    print_json(result);
  } else {
    print_table(result);
  }
  return result.statuses_equal() ? 0 : 1;
}

}  // namespace

void register_rerun(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RerunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "rerun", "Repeat an archived run from the archive alone and print the new numbers beside the old");
  cmd->add_option("run", args->run_id, "Run id (see `kharness archive ls`)")->required();
  cmd->add_option("--archive", args->archive, "Archive folder")->required()->check(CLI::ExistingDirectory);
  cmd->add_flag("--json", args->json, "Print as JSON");
  cmd->add_flag("--fresh-seeds", args->fresh_seeds, "Draw new seeds instead of the recorded base seed");
  cmd->add_flag("--no-record", args->no_record, "Do not store the rerun in the archive");
  cmd->callback([args, &exit_code] { guarded_run(exit_code, [&] { return run_rerun(*args); }); });
}

}  // namespace kh::cli
