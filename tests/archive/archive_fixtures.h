// What the archive tests share: a temp folder, a synthetic run (one definition, N
// workloads, a candidate, a build and N traces with samples) that needs no compiler,
// and running a program to completion.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>

#include "archive/run_record.h"
#include "support/temp_dir.h"

namespace kh::archive::test {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

// Each suite's folders carry its own prefix, to tell leftovers apart.
class TempDir : public kh::test::TempDir {
 public:
  TempDir() : kh::test::TempDir("kh_archive_") {}
};

inline std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline const char* kSyntheticDefinition = R"({
  "name": "synthetic_copy",
  "op_type": "synthetic",
  "axes": { "N": { "type": "var" } },
  "inputs": { "x": { "shape": ["N"], "dtype": "float32" } },
  "outputs": { "y": { "shape": ["N"], "dtype": "float32" } },
  "reference": "def run(x):\n    return x"
}
)";

inline json synthetic_workload(int i) {
  return {{"uuid", "w-" + std::to_string(i)},
          {"axes", {{"N", i + 1}}},
          {"inputs", {{"x", {{"type", "random"}}}}}};
}

inline std::string synthetic_solution(const std::string& name) {
  const json s = {{"name", name},
                  {"definition", "synthetic_copy"},
                  {"author", "test"},
                  {"spec",
                   {{"language", "cpp"},
                    {"target_hardware", {"cpu"}},
                    {"entry_point", "k.cpp::run"},
                    {"dependencies", json::array()}}},
                  {"sources", {{{"path", "k.cpp"}, {"content", "// " + name + "\nvoid run() {}\n"}}}}};
  return s.dump(2) + "\n";
}

inline std::string synthetic_trace(const std::string& solution, int i, double latency_ms) {
  const json t = {
      {"definition", "synthetic_copy"},
      {"workload", synthetic_workload(i)},
      {"solution", solution},
      {"evaluation",
       {{"status", "PASSED"},
        {"environment", {{"hardware", "test-cpu"}, {"libs", {{"kharness", "test"}}}}},
        {"timestamp", "2026-01-01T00:00:00Z"},
        {"log", ""},
        {"correctness", {{"max_relative_error", 0.0}, {"max_absolute_error", 0.0}}},
        {"performance",
         {{"latency_ms", latency_ms}, {"reference_latency_ms", 2 * latency_ms}, {"speedup_factor", 2.0}}},
        {"kharness", {{"speed_of_light", {{"floor_ms", latency_ms / 4}, {"fraction", 0.25}}}}}}}};
  return t.dump();
}

// A run of candidate `tag` on `traces` workloads, with 2 timing trials of samples each
// for the candidate and the reference.
inline RunRecord synthetic_run(const std::string& tag, int traces) {
  RunRecord r;
  r.definition_json = kSyntheticDefinition;
  const std::string name = "candidate-" + tag;
  r.candidate = SolutionRecord{synthetic_solution(name), "candidate", {}};
  r.reference = SolutionRecord{synthetic_solution("reference"), "reference", {}};
  r.build = BuildRecord{"key-" + tag, "ok", "", "compiled " + tag, {}, 0.5, false, "g++ test"};
  r.environment = {{"hardware", "test-cpu"}, {"libs", json::object()}};
  r.backend = "cpu";
  r.protocol = "official";
  r.protocol_json = {{"name", "official"}};
  r.options_json = {{"backend", "cpu"}, {"seed", 7}};
  r.tolerance_json = {{"atol", 0.01}, {"rtol", 0.01}, {"required_matched_ratio", 1.0}};
  r.command_line = {"test", tag};
  r.started_at = "2026-01-01T00:00:00.000Z";
  r.finished_at = "2026-01-01T00:00:01.000Z";
  for (int i = 0; i < traces; ++i) {
    json line = {{"definition", "synthetic_copy"},
                 {"solution", nullptr},
                 {"workload", synthetic_workload(i)},
                 {"evaluation", nullptr}};
    r.workloads.push_back(WorkloadRecord{line.dump(), {}});
    TraceRecord t{synthetic_trace(name, i, 0.001 * (i + 1)), {}, {}};
    for (int trial = 0; trial < 2; ++trial) {
      t.candidate_samples.emplace_back(20, 0.001 * (i + 1) + trial * 1e-6);
      t.reference_samples.emplace_back(20, 0.002 * (i + 1));
    }
    r.traces.push_back(std::move(t));
  }
  return r;
}

struct CommandResult {
  int status = -1;
  std::string out;
};

// Runs a shell command line; stderr goes to the output too, so messages can be checked.
inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

inline std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace kh::archive::test
