#include "archive/profile_record.h"

#include "archive/index_writer.h"
#include "archive/utc_time.h"
#include "archive/write_transaction.h"
#include "error/error.h"

namespace kh::archive {

RowId record_profile(Archive& archive, const ProfileRecord& p) {
  const std::string blob = archive.blobs().put(p.bytes);  // before the row that names it
  Database& db = archive.db();
  return write_transaction(db, [&] {
    IndexWriter writer(db);
    const std::optional<RowId> solution_id = writer.find_solution(p.solution);
    if (!solution_id)
      throw Error(Location{"", 0, "solution"}, "solution " + p.solution + " is not in the archive");
    writer.add_blob(blob, static_cast<std::int64_t>(p.bytes.size()), "profile");
    Statement s = db.prepare(
        "INSERT INTO profiles(solution_id, run_id, workload_uuid, kind, blob, summary_json, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, *solution_id).bind(2, p.run_id).bind(3, p.workload_uuid).bind(4, p.kind).bind(5, blob);
    s.bind(6, p.summary.is_null() ? std::nullopt : std::optional<std::string>(p.summary.dump()))
        .bind(7, utc_now());
    s.run();
    return db.last_insert_rowid();
  });
}

}  // namespace kh::archive
