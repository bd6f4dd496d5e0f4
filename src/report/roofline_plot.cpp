// The roofline: each top candidate's achieved FLOP/s on each workload against the
// workload's arithmetic intensity, under the device's measured bandwidth roof
// (FLOP/s = intensity x bandwidth) and compute roof, which meet at the ridge point.
#include <fmt/format.h>

#include <algorithm>

#include "report/plots.h"
#include "report/svg/plot_canvas.h"

namespace kh::report {
namespace {

using svg::AxisSpec;
using svg::PlotCanvas;
using svg::Point;
using svg::ScaleKind;

void draw_roofs(PlotCanvas& plot, const RooflineData& d) {
  const svg::Scale& x = plot.x();
  const svg::Scale& y = plot.y();
  const double ridge = d.compute_peak / d.bandwidth;
  // The bandwidth roof, clipped to the plot: from where it enters (left edge or floor).
  const double start = std::max(x.lo(), y.lo() / d.bandwidth);
  const double knee = std::min(ridge, x.hi());
  if (start < knee) {
    plot.guide({start, start * d.bandwidth}, {knee, knee * d.bandwidth},
               fmt::format("{:.0f} GB/s", d.bandwidth / 1e9), "#555", false);
  }
  if (ridge < x.hi()) {
    plot.guide({std::max(ridge, x.lo()), d.compute_peak}, {x.hi(), d.compute_peak},
               fmt::format("{:.3g} TFLOP/s {}", d.compute_peak / 1e12, d.compute_unit), "#555");
  }
}

}  // namespace

std::string roofline_plot(const DefinitionReport& r, const RooflineData& d) {
  std::vector<double> xs, ys;
  for (const RooflinePoint& p : d.points) {
    xs.push_back(p.intensity);
    ys.push_back(p.flops_per_s);
  }
  const bool roofs = d.bandwidth > 0 && d.compute_peak > 0;
  if (roofs) {
    ys.push_back(d.compute_peak);
    xs.push_back(4 * d.compute_peak / d.bandwidth);  // the ridge and some compute roof stay in view
  }
  PlotCanvas plot("Roofline", AxisSpec{"arithmetic intensity (FLOP/byte)", ScaleKind::log, xs},
                  AxisSpec{"achieved FLOP/s", ScaleKind::log, ys});
  if (roofs) draw_roofs(plot, d);
  std::vector<std::size_t> order;
  for (const RooflinePoint& p : d.points) {
    if (std::find(order.begin(), order.end(), p.candidate) == order.end()) order.push_back(p.candidate);
  }
  for (std::size_t s = 0; s < order.size(); ++s) {
    std::vector<Point> pts;
    std::vector<std::string> labels;
    const std::string name = candidate_label(r.candidates[order[s]]);
    for (const RooflinePoint& p : d.points) {
      if (p.candidate != order[s]) continue;
      pts.push_back({p.intensity, p.flops_per_s});
      labels.push_back(
          fmt::format("{} on {}: {:.3g} GFLOP/s", name, p.workload.substr(0, 8), p.flops_per_s / 1e9));
    }
    plot.point_series(pts, name, s, labels);
  }
  if (d.points.empty())
    plot.note("no trace with speed-of-light data (flops, bytes)");
  else if (!roofs)
    plot.note("no device peaks in the traces: roofs not drawn");
  return plot.finish();
}

}  // namespace kh::report
