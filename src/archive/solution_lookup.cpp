#include "archive/solution_lookup.h"

#include <cstdint>

#include "archive/sqlite_statement.h"

namespace kh::archive {

std::vector<std::string> content_ids_starting_with(Archive& archive, std::string_view prefix,
                                                   std::size_t limit) {
  Statement s =
      archive.db().prepare("SELECT content_id FROM solutions WHERE substr(content_id, 1, ?) = ? LIMIT ?");
  s.bind(1, static_cast<std::int64_t>(prefix.size()))
      .bind(2, prefix)
      .bind(3, static_cast<std::int64_t>(limit));
  std::vector<std::string> found;
  while (s.step()) found.push_back(s.column_text(0));
  return found;
}

std::optional<std::string> solution_json(Archive& archive, std::string_view content_id) {
  Statement s = archive.db().prepare("SELECT json_blob FROM solutions WHERE content_id = ?");
  s.bind(1, content_id);
  if (!s.step()) return std::nullopt;
  return archive.blobs().read(s.column_text(0));
}

}  // namespace kh::archive
