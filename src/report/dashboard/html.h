// HTML building blocks of the dashboard's pages: escaping, URL encoding, the page
// frame (header, navigation, the embedded stylesheet's link) and table rows.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kh::report::dashboard {

[[nodiscard]] std::string html_escape(std::string_view text);
// Percent-encodes everything but unreserved characters, for a path segment.
[[nodiscard]] std::string url_encode(std::string_view text);

struct Crumb {
  std::string label;
  std::string href;  // "" for the current page
};

class HtmlPage {
 public:
  HtmlPage(std::string_view title, std::initializer_list<Crumb> crumbs);

  HtmlPage& raw(std::string_view html);   // trusted markup (ours, or an SVG we wrote)
  HtmlPage& text(std::string_view text);  // escaped
  HtmlPage& heading(int level, std::string_view text, std::string_view id = "");
  HtmlPage& paragraph(std::string_view text, std::string_view css_class = "");
  HtmlPage& link(std::string_view href, std::string_view text);
  HtmlPage& pre(std::string_view text, std::string_view css_class = "");
  // A table; cells are trusted HTML (escape text with html_escape first).
  HtmlPage& table(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows,
                  std::string_view css_class = "");

  [[nodiscard]] std::string finish();

 private:
  std::string out_;
};

// <a href="...">text</a> with both escaped.
[[nodiscard]] std::string anchor(std::string_view href, std::string_view text);

}  // namespace kh::report::dashboard
