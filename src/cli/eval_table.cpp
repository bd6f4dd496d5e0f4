#include "cli/eval_table.h"

#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "eval/device_peaks_json.h"
#include "trace/json_io.h"

namespace kh::cli {
namespace {

std::string axes_text(const Workload& w) {
  std::string out;
  for (const auto& [name, value] : w.axes) out += fmt::format("{}{}={}", out.empty() ? "" : " ", name, value);
  return out;
}

std::string first_line(const std::string& s, std::size_t max) {
  std::string line = s.substr(0, s.find('\n'));
  return line.size() > max ? line.substr(0, max - 3) + "..." : line;
}

std::string ms(const std::optional<LatencyMeasurement>& m) {
  return m ? fmt::format("{:.4f}", m->latency_ms) : "-";
}

}  // namespace

void print_eval_table(const EvaluationTarget& target, const SolutionEvaluation& result) {
  fmt::print("\n{} on {} ({}, build {}{})\n", target.candidate.name, target.definition.name,
             result.device.value("name", std::string("?")), result.candidate_build.cache_hit ? "cached " : "",
             result.candidate_build.key.substr(0, 12));
  fmt::print("{:<10} {:<24} {:<20} {:>11} {:>11} {:>8} {:>7} {:>10}  {}\n", "workload", "axes", "status",
             "latency_ms", "ref_ms", "speedup", "sol", "max_abs", "note");
  std::size_t passed = 0;
  for (const WorkloadResult& w : result.workloads) {
    passed += w.status == EvalStatus::passed ? 1 : 0;
    const std::string speedup = w.speedup() > 0 ? fmt::format("{:.3f}x", w.speedup()) : "-";
    const std::string err = w.correctness ? fmt::format("{:.2e}", w.correctness->max_absolute_error) : "-";
    const double sol = w.speed_of_light_fraction();
    const std::string sol_text = sol > 0 ? fmt::format("{:.1f}%", sol * 100) : "-";
    fmt::print("{:<10} {:<24} {:<20} {:>11} {:>11} {:>8} {:>7} {:>10}  {}\n", w.workload.uuid.substr(0, 8),
               first_line(axes_text(w.workload), 24), status_name(w.status), ms(w.latency),
               ms(w.reference_latency), speedup, sol_text, err, first_line(w.log, 100));
  }
  fmt::print("{} of {} workloads passed\n", passed, result.workloads.size());
  if (result.lanes.size() > 1) {
    for (std::size_t i = 0; i < result.lanes.size(); ++i) {
      const auto& d = result.lanes[i].device;
      const std::string host = d.value("host", std::string());
      fmt::print("lane {}: device {} {} {}{}\n", i, d.value("index", 0), d.value("name", std::string("?")),
                 d.value("uuid", std::string()), host.empty() ? "" : " on " + host);
    }
  }
  if (result.peaks) {
    fmt::print(
        "sol: the speed-of-light floor / latency, from this device's measured peaks: {:.0f} GB/s, "
        "{:.3g} TFLOP/s fp32, {:.3g} bf16, {:.3g} fp8\n",
        result.peaks->bandwidth / 1e9, result.peaks->fp32 / 1e12, result.peaks->bf16_tensor / 1e12,
        result.peaks->fp8_tensor / 1e12);
  } else if (!result.peaks_note.empty()) {
    fmt::print("sol: -, {}\n", result.peaks_note);
  }
}

void print_eval_json(const EvaluationTarget& target, const SolutionEvaluation& result,
                     const std::vector<Trace>& traces, const nlohmann::ordered_json& archived,
                     const nlohmann::ordered_json& executor) {
  nlohmann::ordered_json out;
  out["definition"] = target.definition.name;
  out["solution"] = target.candidate.name;
  out["device"] = result.device;
  out["build"] = {{"status", std::string(build_status_name(result.candidate_build.status))},
                  {"key", result.candidate_build.key},
                  {"cache_hit", result.candidate_build.cache_hit},
                  {"message", result.candidate_build.message}};
  out["all_passed"] = result.all_passed();
  if (result.peaks) out["device_peaks"] = peaks_json(*result.peaks);
  if (!archived.is_null()) out["archive"] = archived;
  if (result.lanes.size() > 1) {
    out["lanes"] = nlohmann::ordered_json::array();
    for (const LaneDevice& l : result.lanes) out["lanes"].push_back(l.device);
  }
  if (!executor.is_null()) out["executor"] = executor;
  out["traces"] = nlohmann::ordered_json::array();
  for (const Trace& t : traces) out["traces"].push_back(to_json(t));
  std::cout << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace kh::cli
