// A plot: an SVG document with a title, a plot area, an x and a y scale (linear or
// log), axes with ticks and grid, data marks in data coordinates, and a legend.
// Data marks carry class "mark" so that tests (and people) can count them.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "report/svg/axis.h"
#include "report/svg/legend.h"
#include "report/svg/scale.h"
#include "report/svg/svg_writer.h"

namespace kh::report::svg {

struct AxisSpec {
  std::string title;
  ScaleKind kind = ScaleKind::linear;
  std::vector<double> values;  // what the scale must show
  bool include_zero = false;
};

class PlotCanvas {
 public:
  static constexpr double kWidth = 640;
  static constexpr double kHeight = 380;

  PlotCanvas(std::string_view title, const AxisSpec& x, const AxisSpec& y);

  // A series as a line through its points (points outside a log scale are skipped),
  // with a dot on each point; `tooltips` (when given) label the dots.
  void line_series(const std::vector<Point>& data, const std::string& name, std::size_t color,
                   bool dashed = false, std::span<const std::string> tooltips = {});
  void point_series(const std::vector<Point>& data, const std::string& name, std::size_t color,
                    std::span<const std::string> tooltips = {});
  // A horizontal reference line at y (e.g. speedup 1), not a data mark.
  void reference_line(double y, const std::string& label);
  // A guide line between two data points (a roof), not a data mark.
  // The label sits at the end of the line (`label_at_end`) or at its start.
  void guide(Point a, Point b, const std::string& label, const std::string& color, bool label_at_end = true);
  void note(const std::string& text);  // a line under the title, e.g. why a plot is empty

  [[nodiscard]] const Scale& x() const noexcept { return x_; }
  [[nodiscard]] const Scale& y() const noexcept { return y_; }
  [[nodiscard]] const Frame& frame() const noexcept { return frame_; }
  [[nodiscard]] SvgWriter& writer() noexcept { return out_; }
  void add_legend(LegendEntry entry) { legend_.push_back(std::move(entry)); }

  [[nodiscard]] std::string finish();

 private:
  [[nodiscard]] std::optional<Point> to_pixels(Point p) const;

  Frame frame_;
  Scale x_, y_;
  SvgWriter out_;
  std::vector<LegendEntry> legend_;
};

}  // namespace kh::report::svg
