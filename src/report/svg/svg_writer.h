// A minimal SVG (XML) writer: elements with attributes, text escaped, numbers printed
// compactly. Only what the report's plots draw; it owns no layout.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kh::report::svg {

struct Point {
  double x = 0;
  double y = 0;
};

// One attribute; the value is escaped when written.
using Attribute = std::pair<std::string_view, std::string>;

class SvgWriter {
 public:
  SvgWriter(double width, double height);

  void rect(double x, double y, double w, double h, std::initializer_list<Attribute> attrs);
  void line(Point a, Point b, std::initializer_list<Attribute> attrs);
  void polyline(const std::vector<Point>& points, std::initializer_list<Attribute> attrs);
  void circle(Point c, double r, std::initializer_list<Attribute> attrs);
  void text(Point at, std::string_view content, std::initializer_list<Attribute> attrs);
  // A <title> child gives a mark a tooltip in browsers.
  void circle_with_title(Point c, double r, std::string_view title, std::initializer_list<Attribute> attrs);
  void rect_with_title(double x, double y, double w, double h, std::string_view title,
                       std::initializer_list<Attribute> attrs);
  void open_group(std::initializer_list<Attribute> attrs);
  void close_group();

  // The document, closed; the writer may not be used after.
  [[nodiscard]] std::string finish();

 private:
  void open_tag(std::string_view name, std::initializer_list<Attribute> attrs);

  std::string out_;
  int open_groups_ = 0;
};

// Escapes &, <, >, " and ' for XML text and attribute values.
[[nodiscard]] std::string xml_escape(std::string_view text);
// Shortest round-trip-free form with at most 6 significant digits ("12.5", "0.001").
[[nodiscard]] std::string number(double v);

}  // namespace kh::report::svg
