#include "report/svg/legend.h"

#include <algorithm>
#include <array>

namespace kh::report::svg {
namespace {

constexpr std::array<const char*, 8> kPalette = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                 "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
constexpr double kRow = 15;
constexpr double kCharWidth = 6.2;  // of the 11 px sans-serif font, to size the box

}  // namespace

std::string series_color(std::size_t i) { return kPalette[i % kPalette.size()]; }

void draw_legend(SvgWriter& out, const Frame& f, const std::vector<LegendEntry>& entries) {
  if (entries.empty()) return;
  std::size_t longest = 0;
  for (const LegendEntry& e : entries) longest = std::max(longest, e.name.size());
  const double width = 30 + kCharWidth * static_cast<double>(std::min<std::size_t>(longest, 40));
  const double left = f.right - width - 6;
  out.open_group({{"class", "legend"}});
  out.rect(left, f.top + 6, width, kRow * static_cast<double>(entries.size()) + 6,
           {{"fill", "white"}, {"fill-opacity", "0.85"}, {"stroke", "#bbb"}});
  double y = f.top + 6 + kRow;
  for (const LegendEntry& e : entries) {
    out.line({left + 6, y - 4}, {left + 22, y - 4},
             {{"stroke", e.color}, {"stroke-width", "2"}, {"stroke-dasharray", e.dashed ? "4 3" : "none"}});
    const std::string name = e.name.size() > 40 ? e.name.substr(0, 39) + "…" : e.name;
    out.text({left + 26, y}, name, {{"class", "legend-entry"}});
    y += kRow;
  }
  out.close_group();
}

}  // namespace kh::report::svg
