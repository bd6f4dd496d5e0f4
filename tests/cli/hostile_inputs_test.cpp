// Every command's file arguments fed the inputs a careless or hostile user hands over:
// a 1 GB (sparse) file, a path of 10,003 characters, JSON nested 10,000 deep, a 200 MB
// source string, 20,000 source files, a source path of 10,003 characters and a 100 MB
// workload line. Each must end in exit status 1 or 2 with a clear error (the limit
// named where one applies), never a signal, and with memory that does not grow with the
// input (peak RSS of the command, read with wait4).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/temp_dir.h"

extern char** environ;

namespace kh {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = KHARNESS_SOURCE_DIR;
const std::string kExample = (kSource / "examples/solutions/rmsnorm_h128_cpu.json").string();
constexpr long kMostRssKiB = 400 * 1024;  // kharness with its CPU workers is well under this

struct Outcome {
  int raw = 0;
  long max_rss_kib = 0;
  std::string out;
};

Outcome run(std::vector<std::string> args, const fs::path& log) {
  args.insert(args.begin(), KHARNESS_BINARY);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = -1;
  Outcome o;
  EXPECT_EQ(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  rusage usage{};
  wait4(pid, &o.raw, 0, &usage);
  o.max_rss_kib = usage.ru_maxrss;
  std::ifstream in(log);
  o.out.assign(std::istreambuf_iterator<char>(in), {});
  return o;
}

// A file of `size` bytes that takes no disk: `head`, a hole of zeros, then `tail`.
fs::path sparse(const fs::path& p, const std::string& head, std::uint64_t size, const std::string& tail) {
  fs::create_directories(p.parent_path());
  { std::ofstream(p, std::ios::binary) << head; }
  fs::resize_file(p, size - tail.size());
  std::ofstream(p, std::ios::binary | std::ios::app) << tail;
  return p;
}

std::string solution_with(const nlohmann::json& sources) {
  return nlohmann::json{{"name", "hostile"},
                        {"definition", "rmsnorm_h128"},
                        {"author", "tests"},
                        {"spec",
                         {{"language", "cpp"},
                          {"target_hardware", {"cpu"}},
                          {"entry_point", "a.cpp::rmsnorm"},
                          {"binding", "kharness"}}},
                        {"sources", sources}}
      .dump();
}

struct Inputs {
  test::TempDir dir{"hostile-"};
  fs::path big_json, big_jsonl, deep, big_source, many_sources, long_source_path, long_line, definition;
  std::string long_path;
  fs::path set_deep, set_line, set_big;

  Inputs() {
    big_json = sparse(dir / "big.json", "{", std::uint64_t{1} << 30, "}");
    big_jsonl = sparse(dir / "big.jsonl", "{", std::uint64_t{1} << 30, "}\n");
    std::string nested = "{\"name\": \"rmsnorm_h128\", \"axes\": " + std::string(10000, '[') +
                         std::string(10000, ']') + ", \"inputs\": {}, \"outputs\": {}}";
    deep = dir.write("deep.json", nested);
    const std::string head = solution_with({{{"path", "a.cpp"}, {"content", "@"}}});
    const std::size_t at = head.find('@');
    big_source =
        sparse(dir / "big_source.json", head.substr(0, at), std::uint64_t{200} << 20, head.substr(at + 1));
    nlohmann::json many = nlohmann::json::array();
    for (int i = 0; i < 20000; ++i)
      many.push_back({{"path", "f" + std::to_string(i) + ".cpp"}, {"content", "//"}});
    many_sources = dir.write("many_sources.json", solution_with(many));
    long_source_path =
        dir.write("long_source_path.json",
                  solution_with({{{"path", std::string(10003, 'a') + ".cpp"}, {"content", "//"}}}));
    long_path = (dir / std::string(10003 - (dir.path().string().size() + 1), 'p')).string();
    std::ifstream def(kSource / "operators/rmsnorm_h128/definition.json");
    const std::string definition_text((std::istreambuf_iterator<char>(def)), {});
    set_deep = dir / "set_deep";
    dir.write("set_deep/definitions/rmsnorm_h128.json", nested);
    set_line = dir / "set_line";
    dir.write("set_line/definitions/rmsnorm_h128.json", definition_text);
    sparse(set_line / "workloads/rmsnorm_h128.jsonl", "{\"definition\": \"", std::uint64_t{100} << 20,
           "\"}\n");
    set_big = dir / "set_big";
    sparse(set_big / "definitions/rmsnorm_h128.json", "{", std::uint64_t{1} << 30, "}");
  }
};

Inputs& inputs() {
  static Inputs* in = new Inputs();  // made once: the files are large, if sparse
  return *in;
}

void expect_refused(const std::string& what, const std::vector<std::string>& args,
                    const std::string& reason) {
  const fs::path log = inputs().dir / "log.txt";
  const Outcome o = run(args, log);
  ASSERT_FALSE(WIFSIGNALED(o.raw)) << what << ": killed by signal " << WTERMSIG(o.raw) << "\n" << o.out;
  ASSERT_TRUE(WIFEXITED(o.raw)) << what;
  EXPECT_TRUE(WEXITSTATUS(o.raw) == 1 || WEXITSTATUS(o.raw) == 2)
      << what << ": exit " << WEXITSTATUS(o.raw) << "\n"
      << o.out;
  EXPECT_LT(o.max_rss_kib, kMostRssKiB) << what << ": peak RSS " << o.max_rss_kib / 1024 << " MiB";
  if (!reason.empty()) {
    EXPECT_NE(o.out.find(reason), std::string::npos) << what << ":\n" << o.out.substr(0, 2000);
  }
}

std::vector<std::string> eval_with(const std::string& solution) {
  return {"eval", "--definition", "rmsnorm_h128", "--backend", "cpu", "--small", "--solution", solution};
}

std::vector<std::string> optimize_with(const std::vector<std::string>& rest) {
  std::vector<std::string> args = {"optimize",     "--definition",
                                   "rmsnorm_h128", "--small",
                                   "--backend",    "cpu",
                                   "--archive",    (inputs().dir / "loop").string(),
                                   "--rounds",     "1"};
  args.insert(args.end(), rest.begin(), rest.end());
  return args;
}

// The document arguments: validate, eval --solution, optimize --from / --replay / --agent-config.
TEST(HostileInputs, DocumentArguments) {
  Inputs& in = inputs();
  const std::vector<std::pair<std::string, std::string>> files = {
      {in.big_json.string(), "json_bytes"},          {in.long_path, ""},
      {in.deep.string(), "nesting deeper than 256"}, {in.big_source.string(), "json_bytes"},
      {in.many_sources.string(), "limit sources"},   {in.long_source_path.string(), "source_path_chars"}};
  for (const auto& [file, reason] : files) {
    const std::string name = file.size() > 80 ? file.substr(file.size() - 40) : file;
    expect_refused("validate " + name, {"validate", file}, reason);
    expect_refused("eval --solution " + name, eval_with(file), reason);
    expect_refused("optimize --from " + name, optimize_with({"--from", file}), reason);
    expect_refused("optimize --replay " + name, optimize_with({"--agent", "replay", "--replay", file}),
                   reason);
    expect_refused(
        "optimize --agent-config " + name, optimize_with({"--agent", "cli", "--agent-config", file}),
        reason == "nesting deeper than 256" || reason.find("source") != std::string::npos ? "" : reason);
  }
}

// The folder arguments: validate, eval --trace-set, archive import.
TEST(HostileInputs, TraceSetArguments) {
  Inputs& in = inputs();
  const std::vector<std::pair<fs::path, std::string>> sets = {{in.set_deep, "nesting deeper than 256"},
                                                              {in.set_line, "jsonl_line_bytes"},
                                                              {in.set_big, "json_bytes"}};
  for (const auto& [set, reason] : sets) {
    const std::string name = set.filename().string();
    expect_refused("validate " + name, {"validate", set.string()}, reason);
    expect_refused("eval --trace-set " + name,
                   {"eval", "--trace-set", set.string(), "--definition", "rmsnorm_h128", "--backend", "cpu",
                    "--solution", kExample},
                   reason);
    expect_refused("archive import " + name,
                   {"archive", "import", set.string(), "--archive", (in.dir / ("import-" + name)).string()},
                   reason);
  }
  expect_refused("validate a 1 GB JSONL", {"validate", in.big_jsonl.string()}, "jsonl_line_bytes");
}

// Files read as text: a prompt or response to archive with a run, refused before the
// evaluation runs.
TEST(HostileInputs, TextArguments) {
  Inputs& in = inputs();
  const std::vector<std::pair<std::string, std::string>> files = {{in.big_json.string(), "json_bytes"},
                                                                  {in.long_path, ""}};
  for (const auto& [file, reason] : files) {
    for (const char* flag : {"--prompt", "--response"}) {
      std::vector<std::string> args = eval_with(kExample);
      args.insert(args.end(), {"--archive", (in.dir / "runs").string(), flag, file});
      expect_refused(std::string("eval ") + flag, args, reason);
    }
  }
}

}  // namespace
}  // namespace kh
