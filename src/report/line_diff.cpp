#include "report/line_diff.h"

#include <algorithm>
#include <cstdint>

namespace kh::report {
namespace {

using Index = std::ptrdiff_t;

// The furthest x on each diagonal k in [-d, d] after each round d of Myers' forward
// search (2d + 1 entries a round, so memory is O(D^2)), kept for the walk back.
struct Search {
  std::vector<std::vector<Index>> rounds;
};

Index furthest(const std::vector<Index>& round, Index d, Index k) {
  return round[static_cast<std::size_t>(k + d)];
}

std::optional<Search> search(const std::vector<std::string>& a, const std::vector<std::string>& b,
                             std::size_t max_d) {
  const auto n = static_cast<Index>(a.size()), m = static_cast<Index>(b.size());
  Search s;
  std::vector<Index> prev{0};  // before round 0: diagonal 1 at x = 0, read as k + 1 from k = 0
  for (Index d = 0; d <= n + m; ++d) {
    if (static_cast<std::size_t>(d) > max_d) return std::nullopt;
    std::vector<Index> v(static_cast<std::size_t>(2 * d + 1), 0);
    for (Index k = -d; k <= d; k += 2) {
      Index x = 0;
      if (d > 0) {
        const bool down = k == -d || (k != d && furthest(prev, d - 1, k - 1) < furthest(prev, d - 1, k + 1));
        x = down ? furthest(prev, d - 1, k + 1) : furthest(prev, d - 1, k - 1) + 1;
      }
      Index y = x - k;
      while (x < n && y < m && a[static_cast<std::size_t>(x)] == b[static_cast<std::size_t>(y)]) ++x, ++y;
      v[static_cast<std::size_t>(k + d)] = x;
      if (x >= n && y >= m) {
        s.rounds.push_back(std::move(v));
        return s;
      }
    }
    s.rounds.push_back(v);
    prev = std::move(v);
  }
  return s;
}

std::vector<DiffLine> walk_back(const Search& s, const std::vector<std::string>& a,
                                const std::vector<std::string>& b) {
  std::vector<DiffLine> out;
  Index x = static_cast<Index>(a.size()), y = static_cast<Index>(b.size());
  const auto push_same = [&](Index xx, Index yy) {
    out.push_back({DiffOp::same, a[static_cast<std::size_t>(xx)], static_cast<std::size_t>(xx + 1),
                   static_cast<std::size_t>(yy + 1)});
  };
  for (auto d = static_cast<Index>(s.rounds.size()) - 1; d > 0; --d) {
    const std::vector<Index>& prev = s.rounds[static_cast<std::size_t>(d - 1)];
    const auto at = [&](Index kk) { return furthest(prev, d - 1, kk); };
    const Index k = x - y;
    const bool down = k == -d || (k != d && at(k - 1) < at(k + 1));  // an insertion from b
    const Index pk = down ? k + 1 : k - 1;
    const Index px = at(pk), py = px - pk;
    while (x > (down ? px : px + 1) && y > (down ? py + 1 : py)) push_same(--x, --y);
    if (down) {
      --y;
      out.push_back({DiffOp::added, b[static_cast<std::size_t>(y)], 0, static_cast<std::size_t>(y + 1)});
    } else {
      --x;
      out.push_back({DiffOp::removed, a[static_cast<std::size_t>(x)], static_cast<std::size_t>(x + 1), 0});
    }
  }
  while (x > 0 && y > 0) push_same(--x, --y);
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      out.emplace_back(text.substr(start));
      break;
    }
    out.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::optional<std::vector<DiffLine>> line_diff(std::string_view old_text, std::string_view new_text,
                                               std::size_t max_edits) {
  const std::vector<std::string> a = split_lines(old_text), b = split_lines(new_text);
  const auto s = search(a, b, max_edits);
  if (!s) return std::nullopt;
  return walk_back(*s, a, b);
}

DiffStat diff_stat(const std::vector<DiffLine>& diff) {
  DiffStat s;
  for (const DiffLine& l : diff) {
    if (l.op == DiffOp::added) ++s.added;
    if (l.op == DiffOp::removed) ++s.removed;
  }
  return s;
}

}  // namespace kh::report
