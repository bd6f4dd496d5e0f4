// The schema objects (tables, indexes, triggers, views) in an index that kharness's
// migrations did not make, or made differently. A trigger can rewrite every figure
// kharness inserts and a view or extra table can hold forged copies, so `archive
// verify` names each one and the loop refuses to run on an index with a trigger or view
// of someone else's.
#pragma once

#include <string>
#include <vector>

#include "archive/sqlite_database.h"

namespace kh::archive {

struct SchemaObject {
  std::string type;  // table, index, trigger, view
  std::string name;
  std::string problem;  // "not made by kharness" or "changed since kharness made it"
};

// Compared with an in-memory index migrated to the same version. SQLite's own objects
// (sqlite_*) are left out.
[[nodiscard]] std::vector<SchemaObject> foreign_schema_objects(Database& db);

}  // namespace kh::archive
