// The report's five SVG plots of one definition, each a complete SVG document:
//   speedup      bars: the best candidate's speedup per workload (log scale, 1 = baseline)
//   fast_p       lines: fast_p against p for the top candidates
//   latency      lines: latency against the var axis (log-log), top candidates + baseline
//   rounds       points: each candidate's geomean latency by round; a line: the best so far
//   roofline     points: achieved FLOP/s against arithmetic intensity, under the device's
//                bandwidth and compute roofs
#pragma once

#include <string>
#include <vector>

#include "report/leaderboard.h"
#include "report/plot_inputs.h"

namespace kh::report {

inline constexpr std::size_t kPlotTop = 5;  // candidates drawn as series

struct NamedPlot {
  std::string name;  // file stem: speedup, fast_p, latency, rounds, roofline
  std::string svg;
};

[[nodiscard]] std::string speedup_plot(const DefinitionReport& report, const PlotInputs& in);
[[nodiscard]] std::string fast_p_plot(const DefinitionReport& report);
[[nodiscard]] std::string latency_plot(const DefinitionReport& report, const PlotInputs& in);
[[nodiscard]] std::string rounds_plot(const DefinitionReport& report, const PlotInputs& in);
[[nodiscard]] std::string roofline_plot(const DefinitionReport& report, const RooflineData& roofline);

[[nodiscard]] std::vector<NamedPlot> all_plots(const DefinitionReport& report, const PlotInputs& in);

// Indices of the best `n` candidates that are not the baseline, in rank order.
[[nodiscard]] std::vector<std::size_t> top_candidates(const DefinitionReport& report, std::size_t n);
// The baseline's index among the candidates, when it has a row.
[[nodiscard]] std::optional<std::size_t> baseline_index(const DefinitionReport& report);
// "name" or "name #id", short enough for a legend.
[[nodiscard]] std::string candidate_label(const CandidateRow& row);

}  // namespace kh::report
