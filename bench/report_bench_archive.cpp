#include "report_bench_archive.h"

#include <fmt/format.h>

#include <random>
#include <string>

#include "archive/archive.h"
#include "archive/document_rows.h"
#include "archive/index_writer.h"
#include "archive/write_transaction.h"

namespace kh::bench {
namespace {

using archive::IndexWriter;
using archive::RowId;

std::string definition_json(const std::string& name) {
  return fmt::format(
      R"({{"name":"{}","op_type":"bench","axes":{{"M":{{"type":"var"}},"K":{{"type":"const","value":4096}}}},)"
      R"("inputs":{{"x":{{"shape":["M","K"],"dtype":"bfloat16"}}}},"outputs":{{"y":{{"shape":["M","K"],)"
      R"("dtype":"bfloat16"}}}},"reference":"def run(x):\n    return x"}})",
      name);
}

std::string solution_json(const std::string& body) {
  return fmt::format(R"({{"name":"bench","definition":"bench","author":"bench","spec":{{"language":"cuda",)"
                     R"("target_hardware":["H200"],"entry_point":"k.cu::run","dependencies":[]}},)"
                     R"("sources":[{{"path":"k.cu","content":"{}"}}]}})",
                     body);
}

// Seconds since the start as an ISO-8601 UTC time, so that candidates order as made.
std::string timestamp(long seconds) {
  return fmt::format("2026-01-{:02}T{:02}:{:02}:{:02}Z", 1 + seconds / 86400, seconds / 3600 % 24,
                     seconds / 60 % 60, seconds % 60);
}

struct Blobs {
  std::string parent, child;
};

Blobs put_sources(const archive::Archive& a) {
  std::string long_body;
  for (int i = 0; i < 200; ++i) long_body += fmt::format("  y[{0}] = x[{0}];\\n", i);
  return {a.blobs().put(solution_json("__global__ void run() {\\n" + long_body + "}\\n")),
          a.blobs().put(solution_json("__global__ void run() {\\n  // unrolled\\n" + long_body + "}\\n"))};
}

struct DefinitionWriter {
  IndexWriter& w;
  archive::Database& db;
  const Blobs& blobs;
  const ArchiveShape& shape;
  std::mt19937_64 rng{7};
  long traces = 0;

  RowId solution(const std::string& def, const std::string& name, const char* role,
                 std::optional<RowId> parent, int c) {
    archive::SolutionRow s;
    s.content_id = fmt::format("{}-{}", def, name);
    s.name = name;
    s.definition = def;
    s.author = "bench";
    s.language = "cuda";
    s.role = role;
    s.json_blob = c % 2 == 0 ? blobs.parent : blobs.child;
    s.parent_id = parent;
    s.agent = "tuner";
    s.technique_family =
        std::array{"tiling", "vectorise", "unroll", "pipeline"}[static_cast<std::size_t>(c % 4)];
    s.hypothesis = fmt::format("try variant {}", c);
    return w.add_solution(s);
  }

  void trace(const std::string& def, int wl, const std::string& name, RowId id, double latency, bool ok,
             long t) {
    const double m = 1 + wl * 7, bytes = m * 4096 * 4, flops = m * 4096 * 3;
    // A line as kharness writes it, and the row derived from it (archive/run_check.h
    // recomputes rows from lines: a report refuses to rank rows that disagree).
    const std::string performance =
        ok ? fmt::format(
                 R"("correctness":{{"max_relative_error":0.0,"max_absolute_error":0.0}},)"
                 R"("performance":{{"latency_ms":{},"reference_latency_ms":{},"speedup_factor":1.3}},)",
                 latency, latency * 1.3)
           : std::string();
    const std::string line = fmt::format(
        R"({{"definition":"{}","workload":{{"uuid":"wl-{:06}","axes":{{"M":{}}},"inputs":{{}}}},"solution":"{}",)"
        R"("evaluation":{{"status":"{}","environment":{{"hardware":"bench","libs":{{}}}},"timestamp":"{}","log":"",)"
        R"({}"kharness":{{"speed_of_light":{{"flops":{},"bytes":{},"compute":"bf16_tensor","floor_ms":{},)"
        R"("fraction":{},"device_peaks":{{"bandwidth_bytes_per_s":4.0e12,"fp32_flops":6.0e13,)"
        R"("bf16_tensor_flops":9.0e14,"fp8_tensor_flops":1.8e15}}}}}}}}}})",
        def, wl, m, name, ok ? "PASSED" : "RUNTIME_ERROR", timestamp(t), performance, flops, bytes,
        bytes / 4e12 * 1e3, ok ? bytes / 4e12 * 1e3 / latency : 0.0);
    archive::TraceRow r = archive::trace_row(line, Location{"bench", 0, ""});
    r.solution_id = id;
    w.add_trace(r);
    ++traces;
  }

  void definition(int d) {
    const std::string def = fmt::format("bench_def_{}", d);
    w.add_definition({def, "bench", "def-" + def, definition_json(def), {}});
    for (int wl = 0; wl < shape.workloads; ++wl) {
      const std::string axes = fmt::format(R"({{"M":{}}})", 1 + wl * 7);
      w.add_workload(
          {def,
           fmt::format("wl-{:06}", wl),
           axes,
           fmt::format("{}-wl-{}", def, wl),
           fmt::format(R"({{"definition":"{}","workload":{{"uuid":"wl-{:06}","axes":{}}}}})", def, wl, axes),
           {}});
    }
    std::uniform_real_distribution<double> jitter(0.6, 1.4);
    const std::string base_name = def + "_baseline_cuda";
    const RowId base = solution(def, base_name, "baseline", std::nullopt, 0);
    for (int wl = 0; wl < shape.workloads; ++wl) trace(def, wl, base_name, base, 0.01 * (1 + wl), true, 0);
    std::vector<RowId> ids;
    archive::Statement decide = db.prepare(
        "INSERT INTO decisions(loop_id, round, kind, solution_id, baseline_id, evidence_json, started_at, "
        "decided_at) "
        "VALUES (?, ?, ?, ?, ?, '{}', ?, ?)");
    for (int c = 0; c < shape.candidates; ++c) {
      const std::string name = fmt::format("cand_{}", c);
      const std::optional<RowId> parent =
          c == 0 ? std::optional<RowId>(base) : ids[static_cast<std::size_t>(c / 2)];
      ids.push_back(solution(def, name, "candidate", parent, c));
      for (int wl = 0; wl < shape.workloads; ++wl) {
        trace(def, wl, name, ids.back(), 0.01 * (1 + wl) * jitter(rng), rng() % 50 != 0, 60L * (c + 1));
      }
      if (c % 10 != 0) continue;
      decide.bind(1, def).bind(2, c / 10 + 1).bind(3, c % 20 == 0 ? "promote" : "archive_only");
      decide.bind(4, ids.back()).bind(5, base).bind(6, timestamp(60L * c)).bind(7, timestamp(60L * c + 30));
      decide.run();
    }
  }
};

}  // namespace

long generate_report_archive(const std::filesystem::path& dir, const ArchiveShape& shape) {
  archive::Archive a = archive::Archive::open_or_create(dir);
  const Blobs blobs = put_sources(a);
  return archive::write_transaction(a.db(), [&] {
    IndexWriter w(a.db());
    w.add_blob(blobs.parent, 0, "solution");
    w.add_blob(blobs.child, 0, "solution");
    DefinitionWriter writer{w, a.db(), blobs, shape};
    for (int d = 0; d < shape.definitions; ++d) writer.definition(d);
    return writer.traces;
  });
}

}  // namespace kh::bench
