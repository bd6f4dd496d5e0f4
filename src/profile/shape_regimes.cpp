#include "profile/shape_regimes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "error/error.h"

namespace kh::profile {

namespace {

// Distinct log-costs with their members: equal sizes never land in different regimes.
struct Point {
  double log_cost = 0;
  std::vector<std::size_t> members;
};

// Weighted within-cluster spread of points [i, j] from prefix sums.
struct Spread {
  explicit Spread(const std::vector<Point>& p) : w(p.size() + 1), s(p.size() + 1), q(p.size() + 1) {
    for (std::size_t i = 0; i < p.size(); ++i) {
      const auto n = static_cast<double>(p[i].members.size());
      w[i + 1] = w[i] + n;
      s[i + 1] = s[i] + n * p[i].log_cost;
      q[i + 1] = q[i] + n * p[i].log_cost * p[i].log_cost;
    }
  }
  [[nodiscard]] double operator()(std::size_t i, std::size_t j) const {
    const double n = w[j + 1] - w[i];
    const double sum = s[j + 1] - s[i];
    return std::max(0.0, q[j + 1] - q[i] - sum * sum / n);
  }
  std::vector<double> w, s, q;
};

struct Partition {
  double spread = 0;
  std::vector<std::size_t> starts;  // first point of each cluster
};

// Exact least-spread partition of sorted points into k contiguous clusters.
Partition partition(const std::vector<Point>& points, std::size_t k) {
  const std::size_t m = points.size();
  const Spread spread(points);
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<std::vector<double>> best(k + 1, std::vector<double>(m + 1, inf));
  std::vector<std::vector<std::size_t>> cut(k + 1, std::vector<std::size_t>(m + 1, 0));
  best[0][0] = 0;
  for (std::size_t c = 1; c <= k; ++c) {
    for (std::size_t j = c; j <= m; ++j) {
      for (std::size_t i = c - 1; i < j; ++i) {
        const double v = best[c - 1][i] + spread(i, j - 1);
        if (v < best[c][j]) {
          best[c][j] = v;
          cut[c][j] = i;
        }
      }
    }
  }
  Partition p{best[k][m], std::vector<std::size_t>(k)};
  for (std::size_t c = k, j = m; c > 0; --c) {
    p.starts[c - 1] = cut[c][j];
    j = cut[c][j];
  }
  return p;
}

// Fewest clusters in [lo, hi] after which one more stops paying for itself.
std::size_t choose_cluster_count(const std::vector<Point>& points, std::size_t lo, std::size_t hi,
                                 double split_gain) {
  hi = std::min(hi, points.size());
  lo = std::min(lo, hi);
  std::size_t k = std::max<std::size_t>(lo, 1);
  const double whole = partition(points, 1).spread;
  while (k < hi) {
    const double now = partition(points, k).spread;
    const double next = partition(points, k + 1).spread;
    if (whole <= 0 || (now - next) / whole < split_gain) break;
    ++k;
  }
  return k;
}

std::string axes_range(const Definition& d, const std::vector<Workload>& workloads,
                       const std::vector<std::size_t>& members) {
  std::vector<std::string> parts;
  for (const auto& [name, axis] : d.axes) {
    if (axis.is_const()) continue;
    std::int64_t lo = std::numeric_limits<std::int64_t>::max();
    std::int64_t hi = std::numeric_limits<std::int64_t>::min();
    for (std::size_t i : members) {
      const std::int64_t* v = workloads[i].axes.find(name);
      if (v == nullptr) continue;
      lo = std::min(lo, *v);
      hi = std::max(hi, *v);
    }
    if (lo > hi) continue;
    parts.push_back(lo == hi ? fmt::format("{} {}", name, lo) : fmt::format("{} {}..{}", name, lo, hi));
  }
  return parts.empty() ? "all" : fmt::format("{}", fmt::join(parts, ", "));
}

// The member nearest the regime's median cost, then (for big regimes) its largest.
std::vector<std::size_t> representatives(const std::vector<std::size_t>& by_cost) {
  std::vector<std::size_t> reps{by_cost[(by_cost.size() - 1) / 2]};
  if (by_cost.size() > 8) reps.push_back(by_cost.back());
  return reps;
}

std::vector<std::string> cluster_names(std::size_t k) {
  switch (k) {
    case 1:
      return {"all"};
    case 2:
      return {"small", "large"};
    case 3:
      return {"small", "medium", "large"};
    default:
      break;
  }
  std::vector<std::string> names{"small", "medium", "large", "very large"};
  for (std::size_t i = 4; i < k; ++i) names.push_back(fmt::format("size {}", i + 1));
  return names;
}

}  // namespace

std::vector<double> var_axes_product(const Definition& definition, const std::vector<Workload>& workloads) {
  std::vector<double> costs;
  for (const Workload& w : workloads) {
    double c = 1;
    for (const auto& [name, axis] : definition.axes) {
      if (axis.is_const()) continue;
      if (const std::int64_t* v = w.axes.find(name)) c *= static_cast<double>(std::max<std::int64_t>(1, *v));
    }
    costs.push_back(c);
  }
  return costs;
}

std::vector<std::string> RegimePlan::explain() const {
  std::vector<std::string> lines{
      fmt::format("{} regime(s), cost estimated from {}", regimes.size(), cost_basis)};
  for (const Regime& r : regimes) {
    lines.push_back(fmt::format("  {:<10} {:<40} {:>3} workload(s) {:5.1f}% of cost; {}", r.name,
                                r.axes_range, r.members.size(), 100 * r.cost_share, r.reason));
  }
  return lines;
}

RegimePlan discover_regimes(const Definition& definition, const std::vector<Workload>& workloads,
                            const std::vector<double>& costs, const std::string& cost_basis,
                            const RegimeOptions& options) {
  if (costs.size() != workloads.size()) {
    throw Error(fmt::format("shape discovery: {} costs for {} workloads", costs.size(), workloads.size()));
  }
  RegimePlan plan;
  plan.cost_basis = cost_basis;
  if (workloads.empty()) return plan;
  double total = 0;
  for (std::size_t i = 0; i < costs.size(); ++i) {
    if (!(costs[i] > 0) || !std::isfinite(costs[i])) {
      throw Error(fmt::format("shape discovery: workload {} has cost {}; costs must be positive",
                              workloads[i].uuid, costs[i]));
    }
    total += costs[i];
  }
  std::vector<std::size_t> order(workloads.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return costs[a] < costs[b]; });

  // Latency-heavy outliers, largest first, while enough workloads remain to cluster.
  std::vector<Regime> outliers;
  while (order.size() > 1 && outliers.size() + 1 < options.max_regimes &&
         costs[order.back()] >= options.outlier_share * total) {
    const std::size_t i = order.back();
    order.pop_back();
    Regime r;
    r.members = {i};
    r.representatives = {i};
    r.cost_share = costs[i] / total;
    r.reason =
        fmt::format("one workload with {:.0f}% of the estimated cost (at least {:.0f}%): tuned on its own",
                    100 * r.cost_share, 100 * options.outlier_share);
    outliers.push_back(std::move(r));
  }

  std::vector<Point> points;
  for (std::size_t i : order) {
    const double lc = std::log(costs[i]);
    if (points.empty() || lc > points.back().log_cost + 1e-12) points.push_back(Point{lc, {}});
    points.back().members.push_back(i);
  }
  const std::size_t taken = outliers.size();
  const std::size_t lo = options.min_regimes > taken ? options.min_regimes - taken : 1;
  const std::size_t hi = std::max<std::size_t>(1, options.max_regimes - taken);
  const std::size_t k = choose_cluster_count(points, lo, hi, options.split_gain);
  const Partition part = partition(points, k);
  const std::vector<std::string> names = cluster_names(k);
  for (std::size_t c = 0; c < k; ++c) {
    const std::size_t begin = part.starts[c];
    const std::size_t end = c + 1 < k ? part.starts[c + 1] : points.size();
    Regime r;
    r.name = names[c];
    for (std::size_t p = begin; p < end; ++p)
      r.members.insert(r.members.end(), points[p].members.begin(), points[p].members.end());
    for (std::size_t i : r.members) r.cost_share += costs[i] / total;
    r.representatives = representatives(r.members);
    r.reason = c + 1 < k
                   ? fmt::format("{} workload(s); sizes jump {:.1f}x to the next regime", r.members.size(),
                                 std::exp(points[end].log_cost - points[end - 1].log_cost))
                   : fmt::format("{} workload(s); the largest regular shapes", r.members.size());
    plan.regimes.push_back(std::move(r));
  }
  for (std::size_t o = outliers.size(); o-- > 0;) {
    outliers[o].name = fmt::format("outlier {}", outliers.size() - o);
    plan.regimes.push_back(std::move(outliers[o]));
  }
  for (Regime& r : plan.regimes) r.axes_range = axes_range(definition, workloads, r.members);
  return plan;
}

}  // namespace kh::profile
