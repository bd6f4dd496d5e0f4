// What the plots need beyond the leaderboard: the var axis's value per workload, the
// round each candidate was decided in, and the roofline's points and roofs (read from
// the chosen traces' evaluation.kharness.speed_of_light, for the top candidates only).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "report/archive_reader.h"
#include "report/leaderboard.h"

namespace kh::report {

struct RooflinePoint {
  std::size_t candidate = 0;  // index into DefinitionReport::candidates
  std::string workload;
  double intensity = 0;    // FLOP per byte
  double flops_per_s = 0;  // achieved
};

struct RooflineData {
  double bandwidth = 0;      // bytes/s, the measured device peak; 0 when no trace had peaks
  double compute_peak = 0;   // FLOP/s of the unit the operator's math runs on
  std::string compute_unit;  // fp32, bf16_tensor or fp8_tensor
  std::vector<RooflinePoint> points;
};

struct PlotInputs {
  std::string var_axis;                            // "" when the workloads have none
  std::vector<std::optional<double>> var_values;   // one per workload column
  std::unordered_map<RowId, std::int64_t> rounds;  // solution id -> round of its decision
  RooflineData roofline;
};

// The definition's var axis (from its document; else the axis with most distinct values)
// and each workload's value on it.
void fill_var_axis(PlotInputs& in, const std::optional<std::string>& definition_json,
                   const DefinitionReport& report);

// Parses the speed-of-light block of the top `top` candidates' chosen traces.
[[nodiscard]] RooflineData load_roofline(const ArchiveReader& reader, const DefinitionReport& report,
                                         std::size_t top);

[[nodiscard]] PlotInputs load_plot_inputs(const ArchiveReader& reader, const DefinitionReport& report,
                                          std::size_t top);

}  // namespace kh::report
