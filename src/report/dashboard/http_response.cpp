#include "report/dashboard/http_response.h"

#include "report/dashboard/html.h"

namespace kh::report::dashboard {
namespace {

HttpResponse error_page(int status, std::string_view title, std::string_view what) {
  HtmlPage page(title, {{std::string(title), ""}});
  page.heading(1, title).paragraph(what, "error").raw("<p><a href=\"/\">All definitions</a></p>\n");
  return HttpResponse{status, "text/html; charset=utf-8", page.finish()};
}

}  // namespace

HttpResponse not_found(std::string_view what) { return error_page(404, "Not found", what); }

HttpResponse bad_request(std::string_view what) { return error_page(400, "Bad request", what); }

}  // namespace kh::report::dashboard
