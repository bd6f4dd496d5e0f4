#include "archive/run_check.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>

#include "archive/document_rows.h"
#include "archive/run_seal.h"
#include "base/sha256.h"
#include "timing/sample_statistics.h"
#include "trace/json_text.h"

namespace kh::archive {
namespace {

std::string shown(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : "none"; }

void compare(std::vector<std::string>& out, RowId id, const char* column, const std::string& stored,
             const std::string& derived) {
  if (stored != derived) {
    out.push_back(fmt::format("trace {}: {} is '{}' in the index but '{}' in its trace line", id, column,
                              stored, derived));
  }
}

void compare(std::vector<std::string>& out, RowId id, const char* column, const std::optional<double>& stored,
             const std::optional<double>& derived) {
  if (stored != derived) {
    out.push_back(fmt::format("trace {}: {} is {} in the index but {} in its trace line", id, column,
                              shown(stored), shown(derived)));
  }
}

std::vector<double> unpack(std::span<const std::byte> bytes) {
  static_assert(std::endian::native == std::endian::little, "samples are stored little-endian");
  std::vector<double> v(bytes.size() / sizeof(double));
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), v.size() * sizeof(double));
  return v;
}

// The line's candidate trial medians (official: one per trial; robust: one), or none.
std::vector<double> line_trial_medians(const std::string& line) {
  const ordered_json j = ordered_json::parse(line, nullptr, false);
  const ordered_json* at = &j;
  for (const char* key : {"evaluation", "kharness", "latency", "trial_medians_ms"}) {
    if (!at->is_object() || !at->contains(key)) return {};
    at = &(*at)[key];
  }
  std::vector<double> out;
  if (!at->is_array()) return out;
  for (const auto& v : *at) {
    if (v.is_number()) out.push_back(v.get<double>());
  }
  return out;
}

bool same(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)); }

}  // namespace

StoredTrace stored_trace(const Statement& s) {
  StoredTrace t;
  t.id = s.column_int(0);
  t.run_id = s.column_optional_int(1);
  t.content_hash = s.column_text(2);
  t.line = s.column_text(3);
  TraceFacts& f = t.facts;
  f.definition = s.column_text(4);
  f.workload_uuid = s.column_text(5);
  f.solution = s.column_text(6);
  f.status = s.column_text(7);
  f.timestamp = s.column_text(8);
  f.latency_ms = s.column_optional_double(9);
  f.reference_latency_ms = s.column_optional_double(10);
  f.speedup = s.column_optional_double(11);
  f.sol_floor_ms = s.column_optional_double(12);
  f.sol_fraction = s.column_optional_double(13);
  return t;
}

std::vector<std::string> trace_problems(const StoredTrace& t) {
  std::vector<std::string> out;
  if (sha256_hex(t.line) != t.content_hash) {
    out.push_back(fmt::format("trace {}: its line does not hash to its content hash {} (the line was edited)",
                              t.id, t.content_hash.substr(0, 12)));
  }
  TraceRow derived;
  try {
    derived = trace_row(t.line, Location{"trace " + std::to_string(t.id), 0, "line"});
  } catch (const Error& e) {
    out.push_back(fmt::format("trace {}: its line no longer reads as a trace: {}", t.id, e.what()));
    return out;
  }
  const TraceFacts& d = derived.facts;
  const TraceFacts& s = t.facts;
  compare(out, t.id, "definition", s.definition, d.definition);
  compare(out, t.id, "workload_uuid", s.workload_uuid, d.workload_uuid);
  compare(out, t.id, "solution", s.solution, d.solution);
  compare(out, t.id, "status", s.status, d.status);
  compare(out, t.id, "timestamp", s.timestamp, d.timestamp);
  compare(out, t.id, "latency_ms", s.latency_ms, d.latency_ms);
  compare(out, t.id, "reference_latency_ms", s.reference_latency_ms, d.reference_latency_ms);
  compare(out, t.id, "speedup", s.speedup, d.speedup);
  compare(out, t.id, "sol_floor_ms", s.sol_floor_ms, d.sol_floor_ms);
  compare(out, t.id, "sol_fraction", s.sol_fraction, d.sol_fraction);
  return out;
}

std::vector<std::string> sample_problems(const Database& db, const StoredTrace& t) {
  std::vector<std::string> out;
  Statement s = db.prepare(
      "SELECT role, trial, count, data, sha256 FROM samples WHERE trace_id = ? ORDER BY role, trial");
  s.bind(1, t.id);
  std::vector<double> medians;
  while (s.step()) {
    const std::string role = s.column_text(0);
    const std::span<const std::byte> bytes = s.column_blob(3);
    const std::optional<std::string> sha = s.column_optional_text(4);
    if (sha && samples_sha256(bytes) != *sha) {
      out.push_back(fmt::format("trace {}: {} samples of trial {} do not hash to their sha256 (edited)", t.id,
                                role, s.column_int(1)));
    }
    const std::vector<double> values = unpack(bytes);
    if (static_cast<std::int64_t>(values.size()) != s.column_int(2)) {
      out.push_back(fmt::format("trace {}: {} samples of trial {}: {} values, the row says {}", t.id, role,
                                s.column_int(1), values.size(), s.column_int(2)));
    }
    if (role == "candidate" && !values.empty()) medians.push_back(median(values));
  }
  const std::vector<double> reported = line_trial_medians(t.line);
  if (!medians.empty() && medians.size() == reported.size()) {
    for (std::size_t k = 0; k < medians.size(); ++k) {
      if (!same(medians[k], reported[k])) {
        out.push_back(fmt::format("trace {}: trial {}'s samples have median {} ms, its line says {} ms", t.id,
                                  k, medians[k], reported[k]));
      }
    }
  }
  return out;
}

std::vector<std::string> run_problems(const Database& db, RowId run_id, bool* sealed) {
  std::vector<std::string> out;
  Statement traces =
      db.prepare(std::string("SELECT ") + kStoredTraceColumns + " FROM traces WHERE run_id = ? ORDER BY id");
  traces.bind(1, run_id);
  while (traces.step()) {
    const StoredTrace t = stored_trace(traces);
    for (std::string& p : trace_problems(t)) out.push_back(fmt::format("run {}: {}", run_id, std::move(p)));
    for (std::string& p : sample_problems(db, t))
      out.push_back(fmt::format("run {}: {}", run_id, std::move(p)));
  }
  Statement seal = db.prepare("SELECT seal FROM runs WHERE id = ?");
  seal.bind(1, run_id);
  const std::optional<std::string> stored = seal.step() ? seal.column_optional_text(0) : std::nullopt;
  if (sealed != nullptr) *sealed = stored.has_value();
  if (stored && compute_run_seal(db, run_id) != *stored) {
    out.push_back(
        fmt::format("run {}: its rows no longer match its seal (a row or hash was edited, added or "
                    "removed)",
                    run_id));
  }
  return out;
}

}  // namespace kh::archive
