// A plot's legend: one swatch and name per series, stacked in the top-right corner.
#pragma once

#include <string>
#include <vector>

#include "report/svg/axis.h"
#include "report/svg/svg_writer.h"

namespace kh::report::svg {

struct LegendEntry {
  std::string name;
  std::string color;
  bool dashed = false;
};

void draw_legend(SvgWriter& out, const Frame& frame, const std::vector<LegendEntry>& entries);

// The colour of series i (a fixed, colour-blind-friendly cycle of eight).
[[nodiscard]] std::string series_color(std::size_t i);

}  // namespace kh::report::svg
