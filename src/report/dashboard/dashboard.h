// The dashboard's request handling, without the HTTP server: a GET path (already
// percent-decoded) and its query parameters in, a page out. Routes:
//   /                                  definitions
//   /definition/<name>                 leaderboard, plots, per-workload table (?page=N)
//   /definition/<name>/history         the optimisation tree (?page=N)
//   /definition/<name>/plot/<plot>.svg one plot as an SVG document
//   /candidate/<id>                    sources, diff, build log, traces (?page=N), profiles, lineage
//   /blob/<sha256>                     a blob as text (prompts, responses, profiles)
//   /ablation/<id>                     an ablation's comparison: arms, head to head, plots
//   /assets/<name>                     the embedded stylesheet
// Anything else is a 404 page that says what was not found.
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

#include "report/dashboard/definition_cache.h"
#include "report/dashboard/http_response.h"
#include "report/dashboard/reader_pool.h"

namespace kh::report::dashboard {

using QueryParams = std::map<std::string, std::string>;

class Dashboard {
 public:
  // Throws kh::Error when the folder is not a readable archive.
  explicit Dashboard(std::filesystem::path archive_dir);

  // Thread-safe: each call leases its own database connection.
  [[nodiscard]] HttpResponse get(std::string_view path, const QueryParams& query);

  // Computes every definition's leaderboard and plots ahead of the first request (a
  // definition of 100 000 traces takes a few hundred ms), stopping early once `stop`
  // is set. Returns the number of definitions computed.
  std::size_t warm_up(const std::atomic<bool>& stop);

 private:
  HttpResponse definition_route(const ArchiveReader& reader, std::string_view rest, const QueryParams& query);
  HttpResponse blob_route(const ArchiveReader& reader, std::string_view sha256);

  ReaderPool pool_;
  DefinitionCache cache_;
};

}  // namespace kh::report::dashboard
