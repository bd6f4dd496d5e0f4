#include "cli/report_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/guarded_run.h"
#include "error/error.h"
#include "report/ablation_report.h"
#include "report/archive_reader.h"
#include "report/plot_inputs.h"
#include "report/plots.h"
#include "report/report_formats.h"
#include "report/report_loader.h"

namespace kh::cli {
namespace {

namespace fs = std::filesystem;

struct ReportArgs {
  std::string archive;
  std::optional<std::string> definition;
  std::optional<std::string> baseline;
  std::optional<std::string> ablation;
  std::string format = "md";
  std::string out;
  std::size_t top = 20;
  bool json = false;
};

constexpr std::size_t kRooflineTop = 8;

void write_file(const fs::path& file, const std::string& text) {
  std::ofstream f(file, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f.flush()) throw Error(Location{file.string(), 0, ""}, "cannot write the file");
}

// Definition names become folder names: keep them to one safe path segment.
std::string folder_name(const std::string& definition) {
  std::string out = definition;
  for (char& c : out) {
    if (c == '/' || c == '\\' || c == '\0') c = '_';
  }
  return out == "." || out == ".." || out.empty() ? "_" + out : out;
}

// --out DIR: per definition a folder with report.md, report.json, leaderboard.csv,
// workloads.csv and the five plots; at the top, all definitions in one file per format.
void write_out(const ReportArgs& a, const report::ArchiveReader& reader,
               const std::vector<report::DefinitionReport>& reports) {
  const fs::path out(a.out);
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw Error(Location{a.out, 0, "--out"}, "cannot create the folder: " + ec.message());
  nlohmann::ordered_json all = {{"archive", a.archive}, {"definitions", nlohmann::ordered_json::array()}};
  std::string markdown = "# kharness report\n\n";
  for (const report::DefinitionReport& r : reports) {
    const fs::path dir = out / folder_name(r.definition);
    fs::create_directories(dir, ec);
    if (ec) throw Error(Location{dir.string(), 0, "--out"}, "cannot create the folder: " + ec.message());
    const report::PlotInputs inputs = report::load_plot_inputs(reader, r, kRooflineTop);
    for (const report::NamedPlot& p : report::all_plots(r, inputs))
      write_file(dir / (p.name + ".svg"), p.svg);
    const std::string md = report::to_markdown(r, {a.top, 3, true});
    write_file(dir / "report.md", md);
    nlohmann::ordered_json as_json = report::to_json(r);
    write_file(dir / "report.json", as_json.dump(2) + "\n");
    write_file(dir / "leaderboard.csv", report::leaderboard_csv(std::span(&r, 1)));
    write_file(dir / "workloads.csv", report::workloads_csv(std::span(&r, 1)));
    all["definitions"].push_back(std::move(as_json));
    markdown += report::to_markdown(r, {a.top, 0, false}) +
                fmt::format("\nDetails: [{0}/report.md]({0}/report.md)\n\n", folder_name(r.definition));
  }
  write_file(out / "report.md", markdown);
  write_file(out / "report.json", all.dump(2) + "\n");
  write_file(out / "leaderboard.csv", report::leaderboard_csv(reports));
  write_file(out / "workloads.csv", report::workloads_csv(reports));
}

void print(const ReportArgs& a, const std::vector<report::DefinitionReport>& reports) {
  if (a.format == "json") {
    nlohmann::ordered_json all = {{"archive", a.archive}, {"definitions", nlohmann::ordered_json::array()}};
    for (const auto& r : reports) all["definitions"].push_back(report::to_json(r));
    fmt::print("{}\n", all.dump(2));
  } else if (a.format == "csv") {
    fmt::print("{}", report::leaderboard_csv(reports));
  } else {
    fmt::print("# kharness report\n\n");
    for (const auto& r : reports) fmt::print("{}\n", report::to_markdown(r, {a.top, 3, false}));
  }
}

// --ablation ID: the comparison report of one ablation (docs/ablation.md).
int run_ablation_report(const ReportArgs& a, const report::ArchiveReader& reader) {
  if (a.format == "csv") throw Error(Location{"", 0, "--format"}, "an ablation report is md or json");
  const report::AblationReport r = report::load_ablation_report(reader, *a.ablation);
  if (!a.out.empty()) {
    const fs::path out(a.out);
    std::error_code ec;
    fs::create_directories(out, ec);
    if (ec) throw Error(Location{a.out, 0, "--out"}, "cannot create the folder: " + ec.message());
    write_file(out / "report.md", "# kharness ablation report\n\n" + report::ablation_markdown(r, true));
    write_file(out / "report.json", report::ablation_json(r).dump(2) + "\n");
    for (const report::NamedPlot& p : report::ablation_plots(r)) write_file(out / (p.name + ".svg"), p.svg);
    fmt::print(stderr, "report: ablation {} written to {}\n", r.id, a.out);
  }
  if (a.format == "json") {
    fmt::print("{}\n", report::ablation_json(r).dump(2));
  } else if (a.out.empty()) {
    fmt::print("# kharness ablation report\n\n{}", report::ablation_markdown(r, false));
  }
  return 0;
}

int run_report(ReportArgs a) {
  if (a.json) a.format = "json";
  const report::ArchiveReader reader = report::ArchiveReader::open(a.archive);
  if (a.ablation) return run_ablation_report(a, reader);
  std::vector<report::DefinitionReport> reports;
  for (const std::string& name : report::definitions_to_report(reader, a.definition)) {
    reports.push_back(report::load_definition_report(reader, name, a.baseline));
  }
  int status = 0;
  for (const auto& r : reports) {
    if (r.tampered.empty()) continue;
    fmt::print(stderr, "report: {} is not ranked: {} row(s) were edited after kharness recorded them ({})\n",
               r.definition, r.tampered.size(), r.tampered.front());
    status = 1;
  }
  if (!a.out.empty()) {
    write_out(a, reader, reports);
    fmt::print(stderr, "report: {} definition(s) written to {}\n", reports.size(), a.out);
    if (a.format != "md") print(a, reports);
    return status;
  }
  print(a, reports);
  return status;
}

}  // namespace

void register_report(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Leaderboards (contest score), win rate, fast_p, per-workload tables and SVG plots from an archive");
  cmd->add_option("--archive", args->archive, "Archive folder")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("--definition", args->definition, "Only this definition (default: every one)");
  cmd->add_option("--format", args->format, "md (default), csv (the leaderboard) or json (everything)")
      ->check(CLI::IsMember({"md", "csv", "json"}));
  cmd->add_flag("--json", args->json, "Same as --format json");
  cmd->add_option(
      "--out", args->out,
      "Write report.md/json, leaderboard.csv, workloads.csv and the SVG plots here, per definition");
  cmd->add_option(
      "--baseline", args->baseline,
      "Baseline solution name (default: <definition>_baseline_<lang>, else the reference latency)");
  cmd->add_option(
      "--ablation", args->ablation,
      "The comparison report of this ablation (kharness ablate): arms, budgets, head to head, plots");
  cmd->add_option("--top", args->top, "Leaderboard rows in markdown (20)")->check(CLI::PositiveNumber);
  cmd->callback([args, &exit_code] { guarded_run(exit_code, [&] { return run_report(*args); }); });
}

}  // namespace kh::cli
