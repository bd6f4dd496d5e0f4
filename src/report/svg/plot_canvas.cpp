#include "report/svg/plot_canvas.h"

namespace kh::report::svg {
namespace {

constexpr Frame kFrame{64, 34, PlotCanvas::kWidth - 16, PlotCanvas::kHeight - 46};

}  // namespace

PlotCanvas::PlotCanvas(std::string_view title, const AxisSpec& x, const AxisSpec& y)
    : frame_(kFrame),
      x_(Scale::fit(x.kind, x.values, kFrame.left, kFrame.right, x.include_zero)),
      y_(Scale::fit(y.kind, y.values, kFrame.bottom, kFrame.top, y.include_zero)),
      out_(kWidth, kHeight) {
  out_.rect(0, 0, kWidth, kHeight, {{"fill", "white"}});
  out_.text({kWidth / 2, 18}, title, {{"text-anchor", "middle"}, {"font-size", "14"}, {"class", "title"}});
  draw_x_axis(out_, frame_, x_, x.title);
  draw_y_axis(out_, frame_, y_, y.title);
}

std::optional<Point> PlotCanvas::to_pixels(Point p) const {
  if (!x_.contains(p.x) || !y_.contains(p.y)) return std::nullopt;
  return Point{x_(p.x), y_(p.y)};
}

void PlotCanvas::line_series(const std::vector<Point>& data, const std::string& name, std::size_t color,
                             bool dashed, std::span<const std::string> tooltips) {
  std::vector<Point> pixels;
  const std::string c = series_color(color);
  for (const Point& p : data) {
    if (auto px = to_pixels(p)) pixels.push_back(*px);
  }
  out_.open_group({{"class", "series"}, {"data-name", name}});
  out_.polyline(pixels, {{"class", "mark line"},
                         {"stroke", c},
                         {"stroke-width", "2"},
                         {"stroke-dasharray", dashed ? "5 4" : "none"}});
  out_.close_group();
  point_series(data, "", color, tooltips);
  add_legend({name, c, dashed});
}

void PlotCanvas::point_series(const std::vector<Point>& data, const std::string& name, std::size_t color,
                              std::span<const std::string> tooltips) {
  const std::string c = series_color(color);
  out_.open_group({{"class", "series points"}, {"data-name", name}});
  for (std::size_t i = 0; i < data.size(); ++i) {
    const auto px = to_pixels(data[i]);
    if (!px) continue;
    const std::string title = i < tooltips.size() ? tooltips[i] : name;
    out_.circle_with_title(*px, 3.5, title, {{"class", "mark point"}, {"fill", c}});
  }
  out_.close_group();
  if (!name.empty()) add_legend({name, c, false});
}

void PlotCanvas::reference_line(double y, const std::string& label) {
  if (!y_.contains(y)) return;
  const double py = y_(y);
  out_.line({frame_.left, py}, {frame_.right, py},
            {{"stroke", "#888"}, {"stroke-dasharray", "3 3"}, {"class", "reference"}});
  out_.text({frame_.left + 4, py - 3}, label, {{"fill", "#666"}});
}

void PlotCanvas::guide(Point a, Point b, const std::string& label, const std::string& color,
                       bool label_at_end) {
  out_.line({x_(a.x), y_(a.y)}, {x_(b.x), y_(b.y)},
            {{"stroke", color}, {"stroke-width", "1.5"}, {"class", "roof"}});
  if (label_at_end) {
    out_.text({x_(b.x) - 4, y_(b.y) - 5}, label, {{"text-anchor", "end"}, {"fill", color}});
  } else {
    out_.text({x_(a.x) + 4, y_(a.y) - 5}, label, {{"text-anchor", "start"}, {"fill", color}});
  }
}

void PlotCanvas::note(const std::string& text) {
  out_.text({kWidth / 2, frame_.top + 14}, text,
            {{"text-anchor", "middle"}, {"fill", "#a00"}, {"class", "note"}});
}

std::string PlotCanvas::finish() {
  draw_legend(out_, frame_, legend_);
  return out_.finish();
}

}  // namespace kh::report::svg
