#include "archive/run_seal.h"

#include "base/sha256.h"
#include "error/error.h"

namespace kh::archive {

std::string samples_sha256(std::span<const std::byte> bytes) {
  return sha256_hex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::string compute_run_seal(const Database& db, RowId run_id) {
  Sha256 h;
  h.update_field("kharness run seal 1");
  Statement run = db.prepare(
      "SELECT r.origin, s.content_id, d.content_hash, r.backend, r.protocol, r.options_json, "
      "r.command_line_json, r.started_at, r.finished_at, r.status, r.trace_count, r.checker, "
      "r.tolerance_json "
      "FROM runs r JOIN solutions s ON s.id = r.solution_id JOIN definitions d ON d.id = r.definition_id "
      "WHERE r.id = ?");
  run.bind(1, run_id);
  if (!run.step())
    throw Error(Location{db.file().string(), 0, "runs"}, "run " + std::to_string(run_id) + " is gone");
  for (int c = 0; c < 13; ++c) h.update_field(run.is_null(c) ? std::string("\x01null") : run.column_text(c));
  Statement traces = db.prepare("SELECT id, content_hash FROM traces WHERE run_id = ? ORDER BY id");
  traces.bind(1, run_id);
  Statement samples = db.prepare(
      "SELECT role, trial, count, COALESCE(sha256, '') FROM samples WHERE trace_id = ? ORDER BY role, trial");
  while (traces.step()) {
    h.update_field("trace").update_field(traces.column_text(1));
    samples.bind(1, traces.column_int(0));
    while (samples.step()) {
      h.update_field(samples.column_text(0)).update_field(samples.column_text(1));
      h.update_field(samples.column_text(2)).update_field(samples.column_text(3));
    }
    samples.reset();
  }
  return h.hex_digest();
}

void seal_run(Database& db, RowId run_id) {
  Statement s = db.prepare("UPDATE runs SET seal = ? WHERE id = ?");
  s.bind(1, compute_run_seal(db, run_id)).bind(2, run_id);
  s.run();
}

}  // namespace kh::archive
