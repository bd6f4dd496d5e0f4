// Draws one axis of a plot: its line, ticks with labels, grid lines across the plot
// area, and the axis title.
#pragma once

#include <string_view>

#include "report/svg/scale.h"
#include "report/svg/svg_writer.h"

namespace kh::report::svg {

// The plot area, in pixels.
struct Frame {
  double left = 0, top = 0, right = 0, bottom = 0;
  [[nodiscard]] double width() const noexcept { return right - left; }
  [[nodiscard]] double height() const noexcept { return bottom - top; }
};

void draw_x_axis(SvgWriter& out, const Frame& frame, const Scale& scale, std::string_view title);
void draw_y_axis(SvgWriter& out, const Frame& frame, const Scale& scale, std::string_view title);

}  // namespace kh::report::svg
