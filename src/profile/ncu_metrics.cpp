#include "profile/ncu_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "error/error.h"

namespace kh::profile {

namespace {

constexpr std::string_view kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr std::string_view kStallSuffix = "_per_issue_active.ratio";
// With --nvtx, the column whose name starts so holds each launch's push/pop range stack.
constexpr std::string_view kPushPopColumn = "thread Domain:Push/Pop_Range";

const std::vector<std::string>& stall_reasons() {
  static const std::vector<std::string> r{
      "barrier",         "branch_resolving",   "dispatch_stall", "drain",        "imc_miss", "lg_throttle",
      "long_scoreboard", "math_pipe_throttle", "membar",         "mio_throttle", "misc",     "no_instruction",
      "not_selected",    "short_scoreboard",   "sleeping",       "tex_throttle", "wait"};
  return r;
}

// One CSV record; quoted fields may hold commas. ncu never embeds newlines in a field.
std::vector<std::string> split_record(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.push_back(field);
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  out.push_back(field);
  return out;
}

double number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  if (text.empty() || text == "n/a") return 0;
  try {
    return std::stod(text);
  } catch (const std::exception&) {
    return 0;  // a text value in a metric column ("N/A" variants): treated as absent
  }
}

// Scale of a time unit to microseconds; 1 for anything else.
double to_microseconds(const std::string& unit) {
  if (unit == "nsecond" || unit == "ns") return 1e-3;
  if (unit == "msecond" || unit == "ms") return 1e3;
  if (unit == "second" || unit == "s") return 1e6;
  return 1;
}

double to_bytes(const std::string& unit) {
  if (unit == "Kbyte" || unit == "KB") return 1e3;
  if (unit == "Mbyte" || unit == "MB") return 1e6;
  if (unit == "Gbyte" || unit == "GB") return 1e9;
  if (unit == "Kibyte") return 1024.0;
  if (unit == "Mibyte") return 1024.0 * 1024;
  return 1;
}

KernelMetrics row_metrics(const std::map<std::string, std::size_t>& column,
                          const std::vector<std::string>& units, const std::vector<std::string>& row) {
  auto get = [&](const std::string& name) -> double {
    const auto it = column.find(name);
    return it == column.end() ? 0 : number(row[it->second]);
  };
  auto unit = [&](const std::string& name) -> std::string {
    const auto it = column.find(name);
    return it == column.end() ? std::string() : units[it->second];
  };
  KernelMetrics k;
  if (const auto it = column.find("Kernel Name"); it != column.end()) k.kernel = row[it->second];
  for (const auto& [name, index] : column) {
    if (name.rfind(kPushPopColumn, 0) == 0) k.nvtx_stack = row[index];
  }
  k.duration_us = get("gpu__time_duration.sum") * to_microseconds(unit("gpu__time_duration.sum"));
  k.sm_throughput_pct = get("sm__throughput.avg.pct_of_peak_sustained_elapsed");
  k.memory_throughput_pct = get("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
  k.dram_throughput_pct = get("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed");
  k.l2_throughput_pct = get("lts__throughput.avg.pct_of_peak_sustained_elapsed");
  k.l1_throughput_pct = get("l1tex__throughput.avg.pct_of_peak_sustained_active");
  k.dram_bytes = get("dram__bytes.sum") * to_bytes(unit("dram__bytes.sum"));
  k.registers_per_thread = static_cast<int>(get("launch__registers_per_thread"));
  k.static_shared_bytes = static_cast<long>(get("launch__shared_mem_per_block_static") *
                                            to_bytes(unit("launch__shared_mem_per_block_static")));
  k.dynamic_shared_bytes = static_cast<long>(get("launch__shared_mem_per_block_dynamic") *
                                             to_bytes(unit("launch__shared_mem_per_block_dynamic")));
  k.theoretical_occupancy_pct = get("sm__maximum_warps_per_active_cycle_pct");
  k.achieved_occupancy_pct = get("sm__warps_active.avg.pct_of_peak_sustained_active");
  k.waves_per_sm = get("launch__waves_per_multiprocessor");
  k.l2_hit_rate_pct = get("lts__t_sector_hit_rate.pct");
  for (const std::string& reason : stall_reasons()) {
    const double v = get(std::string(kStallPrefix) + reason + std::string(kStallSuffix));
    if (v > 0) k.top_stalls.emplace_back(reason, v);
  }
  std::stable_sort(k.top_stalls.begin(), k.top_stalls.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (k.top_stalls.size() > 3) k.top_stalls.resize(3);
  return k;
}

}  // namespace

const std::vector<std::string>& ncu_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n{"gpu__time_duration.sum",
                               "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                               "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
                               "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                               "lts__throughput.avg.pct_of_peak_sustained_elapsed",
                               "l1tex__throughput.avg.pct_of_peak_sustained_active",
                               "dram__bytes.sum",
                               "launch__registers_per_thread",
                               "launch__shared_mem_per_block_static",
                               "launch__shared_mem_per_block_dynamic",
                               "sm__maximum_warps_per_active_cycle_pct",
                               "sm__warps_active.avg.pct_of_peak_sustained_active",
                               "launch__waves_per_multiprocessor",
                               "lts__t_sector_hit_rate.pct"};
    for (const std::string& r : stall_reasons()) {
      n.push_back(std::string(kStallPrefix) + r + std::string(kStallSuffix));
    }
    return n;
  }();
  return names;
}

std::vector<KernelMetrics> parse_ncu_raw_csv(std::string_view csv) {
  std::istringstream in{std::string(csv)};
  std::string line;
  std::vector<std::string> header;
  // ncu may print "==PROF==" notes before the table; the header starts with "ID".
  while (std::getline(in, line)) {
    if (line.rfind("\"ID\"", 0) == 0) {
      header = split_record(line);
      break;
    }
  }
  if (header.empty()) throw Error(Location{"ncu csv", 0, "header"}, "no header row starting with \"ID\"");
  std::map<std::string, std::size_t> column;
  for (std::size_t i = 0; i < header.size(); ++i) column.emplace(header[i], i);
  std::vector<std::string> units;
  if (!std::getline(in, line)) return {};
  units = split_record(line);
  std::vector<KernelMetrics> out;
  std::size_t row_number = 2;
  while (std::getline(in, line)) {
    ++row_number;
    if (line.empty() || line.rfind("==", 0) == 0) continue;
    const std::vector<std::string> row = split_record(line);
    if (row.size() != header.size() || units.size() != header.size()) {
      throw Error(Location{"ncu csv", row_number, "row"},
                  fmt::format("{} fields, the header has {}", row.size(), header.size()));
    }
    out.push_back(row_metrics(column, units, row));
  }
  return out;
}

}  // namespace kh::profile
