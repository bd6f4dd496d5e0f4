// A run's seal: one SHA-256 over what the run says and everything it was derived from,
// stored in runs.seal when the run is written (schema version 4). The trace rows carry
// the hash of their line and each sample row the hash of its bytes; the seal chains
// them, in order, with the run's own identity (solution, definition, protocol, options,
// command line, times, status). Recomputing it finds a trace moved between runs, a
// sample row swapped, a command line or status rewritten: anything edited behind
// kharness's back without recomputing every hash below it.
//
// A seal is evidence against edits, not a signature: a writer who knows this format can
// forge a consistent run. Keeping candidates away from the archive (the worker's jail)
// is what stops that; the seal makes every partial edit visible (archive_check.h).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "archive/index_rows.h"
#include "archive/sqlite_database.h"

namespace kh::archive {

// The seal of the run as stored now (rows and hashes as they are in the index).
[[nodiscard]] std::string compute_run_seal(const Database& db, RowId run_id);

// Stores the seal of a run just written; inside the run's write transaction.
void seal_run(Database& db, RowId run_id);

// The hash a sample row carries: SHA-256 of its packed bytes.
[[nodiscard]] std::string samples_sha256(std::span<const std::byte> bytes);

}  // namespace kh::archive
