// A scale maps data values to pixels, linearly or logarithmically, over a domain
// widened to round numbers, and says where its ticks go.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace kh::report::svg {

enum class ScaleKind { linear, log };

class Scale {
 public:
  // Fits the values (non-positive ones are ignored on a log scale). The pixel range may
  // run backwards (y grows downwards in SVG). With no usable value the domain is [0, 1]
  // (linear) or [1, 10] (log).
  static Scale fit(ScaleKind kind, std::span<const double> values, double pixel_from, double pixel_to,
                   bool include_zero = false);

  [[nodiscard]] double operator()(double v) const;
  // Tick values inside the domain: 1-2-5 steps (linear), powers of ten plus 2x and 5x
  // when the domain spans few decades (log).
  [[nodiscard]] std::vector<double> ticks() const;
  [[nodiscard]] static std::string tick_label(double v);
  [[nodiscard]] ScaleKind kind() const noexcept { return kind_; }
  [[nodiscard]] double lo() const noexcept { return lo_; }
  [[nodiscard]] double hi() const noexcept { return hi_; }
  [[nodiscard]] bool contains(double v) const noexcept;

 private:
  Scale(ScaleKind kind, double lo, double hi, double from, double to);

  ScaleKind kind_;
  double lo_, hi_;
  double from_, to_;
};

}  // namespace kh::report::svg
