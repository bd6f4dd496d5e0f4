#include "report/svg/axis.h"

namespace kh::report::svg {
namespace {

constexpr double kTick = 5;

}  // namespace

void draw_x_axis(SvgWriter& out, const Frame& f, const Scale& scale, std::string_view title) {
  out.open_group({{"class", "axis x-axis"}});
  out.line({f.left, f.bottom}, {f.right, f.bottom}, {{"stroke", "#333"}});
  for (double v : scale.ticks()) {
    const double x = scale(v);
    out.line({x, f.top}, {x, f.bottom}, {{"stroke", "#e5e5e5"}, {"class", "grid"}});
    out.line({x, f.bottom}, {x, f.bottom + kTick}, {{"stroke", "#333"}, {"class", "tick"}});
    out.text({x, f.bottom + kTick + 11}, Scale::tick_label(v), {{"text-anchor", "middle"}});
  }
  out.text({(f.left + f.right) / 2, f.bottom + 34}, title,
           {{"text-anchor", "middle"}, {"class", "axis-title"}});
  out.close_group();
}

void draw_y_axis(SvgWriter& out, const Frame& f, const Scale& scale, std::string_view title) {
  out.open_group({{"class", "axis y-axis"}});
  out.line({f.left, f.top}, {f.left, f.bottom}, {{"stroke", "#333"}});
  for (double v : scale.ticks()) {
    const double y = scale(v);
    out.line({f.left, y}, {f.right, y}, {{"stroke", "#e5e5e5"}, {"class", "grid"}});
    out.line({f.left - kTick, y}, {f.left, y}, {{"stroke", "#333"}, {"class", "tick"}});
    out.text({f.left - kTick - 3, y + 4}, Scale::tick_label(v), {{"text-anchor", "end"}});
  }
  const double cy = (f.top + f.bottom) / 2;
  out.text({14, cy}, title,
           {{"text-anchor", "middle"},
            {"class", "axis-title"},
            {"transform", "rotate(-90 14 " + number(cy) + ")"}});
  out.close_group();
}

}  // namespace kh::report::svg
