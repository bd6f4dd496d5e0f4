// Stores one run (RunRecord) in the archive: its blobs first, then every row (solution,
// builds, run, workloads, traces, samples, environment) in ONE write transaction. A
// kill at any moment leaves either the whole run or none of it, and a committed run
// never names a blob that is not on disk.
#pragma once

#include "archive/archive.h"
#include "archive/index_rows.h"
#include "archive/run_record.h"

namespace kh::archive {

struct WrittenRun {
  RowId run_id = 0;
  RowId solution_id = 0;
  std::string solution_content_id;
};

// Throws kh::Error naming the field for a record that does not hold together (a trace
// of another definition, an unknown parent solution, unreadable JSON); nothing is
// written then, apart from blobs, which nothing refers to.
WrittenRun write_run(Archive& archive, const RunRecord& record);

// Completes `lineage.parent` from a unique prefix of an archived solution's content id.
// Throws kh::Error (field lineage.parent) when none or several match, so that a caller
// can refuse a bad lineage before spending minutes on the evaluation.
void resolve_parent(Archive& archive, Lineage& lineage);

}  // namespace kh::archive
