#include "report/dashboard/html.h"

#include <fmt/format.h>

#include "report/svg/svg_writer.h"

namespace kh::report::dashboard {

// HTML text and attribute values need exactly XML's five escapes.
std::string html_escape(std::string_view text) { return svg::xml_escape(text); }

std::string url_encode(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    const bool plain = std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~';
    out += plain ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
  }
  return out;
}

std::string anchor(std::string_view href, std::string_view text) {
  return fmt::format("<a href=\"{}\">{}</a>", html_escape(href), html_escape(text));
}

HtmlPage::HtmlPage(std::string_view title, std::initializer_list<Crumb> crumbs) {
  out_ = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<title>{} · kharness</title><link rel=\"stylesheet\" href=\"/assets/style.css\"></head>\n<body>\n"
      "<header><a class=\"brand\" href=\"/\">kharness</a><nav>",
      html_escape(title));
  for (const Crumb& c : crumbs) {
    out_ += c.href.empty() ? fmt::format(" / <span>{}</span>", html_escape(c.label))
                           : " / " + anchor(c.href, c.label);
  }
  out_ += "</nav></header>\n<main>\n";
}

HtmlPage& HtmlPage::raw(std::string_view html) {
  out_ += html;
  return *this;
}

HtmlPage& HtmlPage::text(std::string_view text) {
  out_ += html_escape(text);
  return *this;
}

HtmlPage& HtmlPage::heading(int level, std::string_view text, std::string_view id) {
  out_ += id.empty()
              ? fmt::format("<h{0}>{1}</h{0}>\n", level, html_escape(text))
              : fmt::format("<h{0} id=\"{2}\">{1}</h{0}>\n", level, html_escape(text), html_escape(id));
  return *this;
}

HtmlPage& HtmlPage::paragraph(std::string_view text, std::string_view css_class) {
  out_ += css_class.empty()
              ? fmt::format("<p>{}</p>\n", html_escape(text))
              : fmt::format("<p class=\"{}\">{}</p>\n", html_escape(css_class), html_escape(text));
  return *this;
}

HtmlPage& HtmlPage::link(std::string_view href, std::string_view text) {
  out_ += anchor(href, text);
  return *this;
}

HtmlPage& HtmlPage::pre(std::string_view text, std::string_view css_class) {
  out_ += fmt::format("<pre class=\"{}\">{}</pre>\n", html_escape(css_class), html_escape(text));
  return *this;
}

HtmlPage& HtmlPage::table(const std::vector<std::string>& headers,
                          const std::vector<std::vector<std::string>>& rows, std::string_view css_class) {
  out_ += fmt::format("<table class=\"{}\"><thead><tr>", html_escape(css_class));
  for (const std::string& h : headers) out_ += "<th>" + html_escape(h) + "</th>";
  out_ += "</tr></thead><tbody>\n";
  for (const auto& row : rows) {
    out_ += "<tr>";
    for (const std::string& cell : row) out_ += "<td>" + cell + "</td>";
    out_ += "</tr>\n";
  }
  out_ += "</tbody></table>\n";
  return *this;
}

std::string HtmlPage::finish() {
  out_ += "</main>\n<footer>kharness dashboard · read-only</footer>\n</body></html>\n";
  return std::move(out_);
}

}  // namespace kh::report::dashboard
