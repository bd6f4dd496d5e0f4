#include "archive/schema_check.h"

#include <map>
#include <utility>

#include "archive/schema.h"

namespace kh::archive {
namespace {

using Objects = std::map<std::pair<std::string, std::string>, std::string>;  // (type, name) -> sql

Objects objects_of(Database& db) {
  Objects out;
  Statement s = db.prepare(
      "SELECT type, name, COALESCE(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
  while (s.step()) out[{s.column_text(0), s.column_text(1)}] = s.column_text(2);
  return out;
}

}  // namespace

std::vector<SchemaObject> foreign_schema_objects(Database& db) {
  const int version = static_cast<int>(db.query_int("PRAGMA user_version"));
  Database reference = Database::open(":memory:", Database::Mode::create);
  const auto steps = migrations();
  std::size_t n = 0;
  while (n < steps.size() && steps[n].to_version <= version) ++n;
  migrate(reference, steps.first(n));
  const Objects expected = objects_of(reference);
  std::vector<SchemaObject> out;
  for (const auto& [key, sql] : objects_of(db)) {
    const auto it = expected.find(key);
    if (it == expected.end())
      out.push_back({key.first, key.second, "not made by kharness"});
    else if (it->second != sql)
      out.push_back({key.first, key.second, "changed since kharness made it"});
  }
  return out;
}

}  // namespace kh::archive
