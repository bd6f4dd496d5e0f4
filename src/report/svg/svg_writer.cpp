#include "report/svg/svg_writer.h"

#include <fmt/format.h>

#include <cmath>

#include "error/error.h"

namespace kh::report::svg {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string number(double v) {
  if (!std::isfinite(v)) return "0";  // a non-finite coordinate would make the document invalid
  return fmt::format("{:.6g}", v);
}

SvgWriter::SvgWriter(double width, double height) {
  out_ = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n",
      number(width), number(height));
}

void SvgWriter::open_tag(std::string_view name, std::initializer_list<Attribute> attrs) {
  out_ += '<';
  out_ += name;
  for (const auto& [key, value] : attrs) out_ += fmt::format(" {}=\"{}\"", key, xml_escape(value));
}

void SvgWriter::rect(double x, double y, double w, double h, std::initializer_list<Attribute> attrs) {
  open_tag("rect", attrs);
  out_ += fmt::format(" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", number(x), number(y), number(w),
                      number(h));
}

void SvgWriter::rect_with_title(double x, double y, double w, double h, std::string_view title,
                                std::initializer_list<Attribute> attrs) {
  open_tag("rect", attrs);
  out_ += fmt::format(" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}</title></rect>\n", number(x),
                      number(y), number(w), number(h), xml_escape(title));
}

void SvgWriter::line(Point a, Point b, std::initializer_list<Attribute> attrs) {
  open_tag("line", attrs);
  out_ += fmt::format(" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n", number(a.x), number(a.y), number(b.x),
                      number(b.y));
}

void SvgWriter::polyline(const std::vector<Point>& points, std::initializer_list<Attribute> attrs) {
  open_tag("polyline", attrs);
  out_ += " fill=\"none\" points=\"";
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (i > 0) out_ += ' ';
    out_ += number(points[i].x) + "," + number(points[i].y);
  }
  out_ += "\"/>\n";
}

void SvgWriter::circle(Point c, double r, std::initializer_list<Attribute> attrs) {
  open_tag("circle", attrs);
  out_ += fmt::format(" cx=\"{}\" cy=\"{}\" r=\"{}\"/>\n", number(c.x), number(c.y), number(r));
}

void SvgWriter::circle_with_title(Point c, double r, std::string_view title,
                                  std::initializer_list<Attribute> attrs) {
  open_tag("circle", attrs);
  out_ += fmt::format(" cx=\"{}\" cy=\"{}\" r=\"{}\"><title>{}</title></circle>\n", number(c.x), number(c.y),
                      number(r), xml_escape(title));
}

void SvgWriter::text(Point at, std::string_view content, std::initializer_list<Attribute> attrs) {
  open_tag("text", attrs);
  out_ += fmt::format(" x=\"{}\" y=\"{}\">{}</text>\n", number(at.x), number(at.y), xml_escape(content));
}

void SvgWriter::open_group(std::initializer_list<Attribute> attrs) {
  open_tag("g", attrs);
  out_ += ">\n";
  ++open_groups_;
}

void SvgWriter::close_group() {
  if (open_groups_ == 0) throw Error("svg: close_group without an open group");
  out_ += "</g>\n";
  --open_groups_;
}

std::string SvgWriter::finish() {
  while (open_groups_ > 0) close_group();
  out_ += "</svg>\n";
  return std::move(out_);
}

}  // namespace kh::report::svg
