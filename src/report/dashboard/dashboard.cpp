#include "report/dashboard/dashboard.h"

#include <fmt/format.h>

#include <charconv>

#include "archive/blob_store.h"
#include "report/dashboard/assets.h"
#include "report/dashboard/pages.h"
#include "report/report_loader.h"

namespace kh::report::dashboard {
namespace {

std::optional<std::int64_t> parse_number(std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) return std::nullopt;
  return v;
}

// ?page=N, 0 when absent; nullopt when malformed.
std::optional<std::size_t> page_of(const QueryParams& q) {
  const auto it = q.find("page");
  if (it == q.end()) return 0;
  const auto v = parse_number(it->second);
  if (!v || *v > 1'000'000) return std::nullopt;
  return static_cast<std::size_t>(*v);
}

bool starts_with(std::string_view s, std::string_view prefix, std::string_view& rest) {
  if (!s.starts_with(prefix)) return false;
  rest = s.substr(prefix.size());
  return true;
}

bool known_definition(const ArchiveReader& reader, const std::string& name) {
  return reader.definition_json(name).has_value() || reader.trace_version(name).first > 0;
}

}  // namespace

Dashboard::Dashboard(std::filesystem::path archive_dir) : pool_(std::move(archive_dir)) {}

HttpResponse Dashboard::get(std::string_view path, const QueryParams& query) {
  const auto page = page_of(query);
  if (!page) return bad_request("page must be a small non-negative integer");
  std::string_view rest;
  if (starts_with(path, "/assets/", rest)) {
    const auto asset = find_asset(rest);
    if (!asset) return not_found("No asset named '" + std::string(rest) + "'.");
    return HttpResponse{200, std::string(asset->content_type), std::string(asset->body)};
  }
  const auto reader = pool_.lease();
  if (path == "/" || path == "/index.html") return index_page(*reader);
  if (starts_with(path, "/definition/", rest)) return definition_route(*reader, rest, query);
  if (starts_with(path, "/candidate/", rest)) {
    const auto id = parse_number(rest);
    if (!id)
      return not_found("'" + std::string(rest) + "' is not a solution id (a number, as in /candidate/12).");
    return candidate_page(*reader, *id, *page);
  }
  if (starts_with(path, "/blob/", rest)) return blob_route(*reader, rest);
  if (starts_with(path, "/ablation/", rest)) return ablation_page(*reader, rest);
  return not_found("No page at '" + std::string(path) +
                   "'. Pages: /, /definition/<name>, /definition/<name>/history, /candidate/<id>, "
                   "/ablation/<id>.");
}

std::size_t Dashboard::warm_up(const std::atomic<bool>& stop) {
  const auto reader = pool_.lease();
  std::size_t n = 0;
  for (const DefinitionEntry& d : reader->definitions()) {
    if (stop) break;
    (void)cache_.get(*reader, d.name);
    ++n;
  }
  return n;
}

HttpResponse Dashboard::definition_route(const ArchiveReader& reader, std::string_view rest,
                                         const QueryParams& query) {
  const std::size_t slash = rest.find('/');
  const std::string name(rest.substr(0, slash));
  const std::string_view sub = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  if (!known_definition(reader, name))
    return not_found("The archive holds no definition named '" + name + "'.");
  const auto cached = cache_.get(reader, name);
  const std::size_t page = page_of(query).value_or(0);
  if (sub.empty()) return definition_page(*cached, page);
  if (sub == "/history") return history_page(reader, *cached, page);
  std::string_view plot;
  if (starts_with(sub, "/plot/", plot) && plot.ends_with(".svg")) {
    plot.remove_suffix(4);
    for (const NamedPlot& p : cached->plots) {
      if (p.name == plot) return HttpResponse{200, "image/svg+xml", p.svg};
    }
  }
  return not_found("No page '" + std::string(sub) + "' under definition '" + name + "'.");
}

HttpResponse Dashboard::blob_route(const ArchiveReader& reader, std::string_view sha256) {
  if (!archive::is_sha256_hex(sha256))
    return not_found("'" + std::string(sha256) + "' is not a SHA-256 blob name.");
  auto bytes = reader.blob(sha256);
  if (!bytes) return not_found("No blob " + std::string(sha256) + " in this archive.");
  return HttpResponse{200, "text/plain; charset=utf-8", std::move(*bytes)};
}

}  // namespace kh::report::dashboard
