#include "bench_session.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "error/error.h"

namespace kh::bench {

namespace {

const std::filesystem::path kSource = KHARNESS_SOURCE_DIR;

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  if (!in) throw Error(Location{p.string(), 0, ""}, "cannot read the file");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

}  // namespace

BenchSession::BenchSession(std::string name, int argc, char** argv) : name_(std::move(name)) {
  CLI::App app{"kharness benchmark: " + name_};
  std::string out;
  std::string kharness = KHARNESS_EXECUTABLE;
  app.add_option("--out", out, "where to write the JSON report")->required();
  app.add_option("--backend", backend_, "cuda or cpu")->check(CLI::IsMember({"cuda", "cpu"}));
  app.add_flag("--quick", quick_, "CI smoke sizes and iteration counts");
  app.add_option("--kharness", kharness, "the kharness binary that runs the workers");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  out_ = out;
  kharness_ = kharness;
  scratch_ = std::filesystem::temp_directory_path() / fmt::format("kharness-bench-{}-{}", name_, ::getpid());
  libraries_.push_back(OperatorLibrary::load(kSource / "bench/operators"));
  libraries_.push_back(OperatorLibrary::load(kSource / "operators"));
  report_ = {{"benchmark", name_},  {"command", command_line(argc, argv)},
             {"backend", backend_}, {"quick", quick_},
             {"device", nullptr},   {"targets", nlohmann::ordered_json::array()}};
}

BenchSession::~BenchSession() {
  std::error_code ec;
  std::filesystem::remove_all(scratch_, ec);
}

EvalOptions BenchSession::official_options(const std::string& run) const {
  EvalOptions o;
  o.backend = backend_;
  o.protocol.kind = ProtocolKind::official;
  if (quick_) {
    o.correctness_trials = 1;
    o.protocol.warmup = 2;
    o.protocol.iterations = 5;
    o.protocol.trials = 2;
  }
  o.timeout = std::chrono::seconds(120);
  o.worker_executable = kharness_;
  o.work_dir = scratch_ / run;
  o.cache_dir = scratch_ / "cache";
  return o;
}

const OperatorLibrary& BenchSession::library_of(const std::string& definition) const {
  for (const OperatorLibrary& lib : libraries_) {
    if (lib.find(definition) != nullptr) return lib;
  }
  throw Error("no operator named '" + definition + "' under bench/operators or operators");
}

EvaluationTarget BenchSession::target(const std::string& definition, Solution candidate) const {
  const OperatorLibrary& lib = library_of(definition);
  const OperatorEntry* op = lib.find(definition);
  std::vector<Workload> workloads = lib.workloads(definition, quick_);
  if (workloads.empty()) workloads = lib.workloads(definition, false);  // no ci-workloads.jsonl
  return lib.target(op->definition, std::move(workloads), op->dir, std::move(candidate), backend_);
}

Solution BenchSession::bench_solution(const std::string& definition, const std::string& stem) const {
  const std::string file = stem + (backend_ == "cuda" ? ".cu" : ".cpp");
  Solution s;
  s.name = stem;
  s.definition = definition;
  s.author = "kharness-bench";
  s.spec.language = backend_ == "cuda" ? "cuda" : "cpp";
  s.spec.entry_point = file + "::" + stem;
  s.spec.binding = "kharness";
  s.sources.push_back({file, read_text(kSource / "bench/solutions" / definition / file), {}});
  return s;
}

void BenchSession::add_target(const std::string& name, double value, double limit, const std::string& unit,
                              bool at_most) {
  const bool enforced = backend_ == "cuda" && !quick_;
  const bool pass = at_most ? value <= limit : value >= limit;
  if (enforced && !pass) missed_ = true;
  report_["targets"].push_back({{"name", name},
                                {"value", value},
                                {"limit", limit},
                                {"unit", unit},
                                {"rule", at_most ? "value <= limit" : "value >= limit"},
                                {"pass", pass},
                                {"enforced", enforced}});
}

int BenchSession::finish() {
  if (!out_.parent_path().empty()) std::filesystem::create_directories(out_.parent_path());
  std::ofstream f(out_);
  f << report_.dump(2) << "\n";
  if (!f) throw Error(Location{out_.string(), 0, ""}, "cannot write the report");
  std::printf("%s\n", report_.dump(2).c_str());
  return missed_ ? 1 : 0;
}

int run_guarded(const std::string& name, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
    return 2;
  }
}

}  // namespace kh::bench
