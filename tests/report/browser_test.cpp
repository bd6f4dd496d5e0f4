// The dashboard in a real browser: headless Chromium (Debian's `chromium`) loads every
// page type of a sample archive, the DOM it built is checked for the content, and a
// screenshot of each page is stored under build/browser-artifacts/ for CI to keep.
//
// The sample archive is built the way users build one: `kharness archive import` of a
// small synthetic trace set, and `kharness eval --archive` of rmsnorm_h128's baseline
// and of an example solution (as the baseline's child) on the CPU backend with --small.
// The server is `kharness serve --port 0` on loopback, stopped at the end.
// Without chromium the test SKIPS, saying so; it never fails for that.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <regex>

#include "report/archive_reader.h"
#include "report_fixtures.h"

namespace kh::report {
namespace {

namespace fs = std::filesystem;

struct Output {
  int status = -1;
  std::string out;
};

// Runs a shell command; stdout only (chromium chats on stderr).
Output shell(const std::string& command) {
  Output r;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 8192> buf{};
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

std::string sh_quote(const fs::path& p) { return "'" + p.string() + "'"; }

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const Output r = shell(std::string("command -v ") + name + " 2>/dev/null");
    if (r.status == 0 && !r.out.empty()) return r.out.substr(0, r.out.find('\n'));
  }
  return "";
}

// `kharness serve --port 0` as a child; its first line of stdout names the port.
class ServeProcess {
 public:
  explicit ServeProcess(const fs::path& archive) {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
      execl(KHARNESS_EXECUTABLE, KHARNESS_EXECUTABLE, "serve", "--archive", archive.c_str(), "--port", "0",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    std::string line;
    char c = 0;
    while (read(fds[0], &c, 1) == 1 && c != '\n') line += c;
    close(fds[0]);
    std::smatch m;
    if (std::regex_search(line, m, std::regex(R"(http://127\.0\.0\.1:(\d+)/)")))
      port_ = std::stoi(m[1].str());
  }
  ~ServeProcess() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;
  [[nodiscard]] int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

class BrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = find_chromium();
    if (chromium_.empty()) {
      GTEST_SKIP()
          << "chromium is not installed (Debian: apt-get install chromium; scripts/setup.sh installs it): "
             "the browser test is skipped";
    }
    artifacts_ = fs::path(KHARNESS_BINARY_DIR) / "browser-artifacts";
    fs::remove_all(artifacts_);
    fs::create_directories(artifacts_);
  }

  std::string kharness(const std::string& args) const {
    const Output r = shell("cd " + sh_quote(KHARNESS_SOURCE_DIR) + " && " + sh_quote(KHARNESS_EXECUTABLE) +
                           " " + args + " 2>&1");
    EXPECT_EQ(r.status, 0) << args << "\n" << r.out;
    return r.out;
  }

  // The DOM after the page loaded, and a 1280x900 screenshot <name>.png.
  std::string visit(const std::string& url, const std::string& name) const {
    const std::string flags =
        " --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions "
        "--user-data-dir=" +
        sh_quote(profile_.path()) + " ";
    const Output dom = shell(sh_quote(chromium_) + flags + "--dump-dom " + sh_quote(url) + " 2>/dev/null");
    EXPECT_EQ(dom.status, 0) << url;
    const fs::path png = artifacts_ / (name + ".png");
    shell(sh_quote(chromium_) + flags + "--hide-scrollbars --window-size=1280,900 --screenshot=" +
          sh_quote(png) + " " + sh_quote(url) + " >/dev/null 2>&1");
    EXPECT_TRUE(fs::exists(png) && fs::file_size(png) > 1000) << "no screenshot of " << url;
    return dom.out;
  }

  std::string chromium_;
  fs::path artifacts_;
  test::TempDir profile_;
};

bool has(const std::string& dom, const std::string& text) { return dom.find(text) != std::string::npos; }

TEST_F(BrowserTest, EveryPageTypeRendersItsContent) {
  test::TempDir work;
  test::TempDir set;
  test::write_toy_set(set);
  const fs::path archive = work.path() / "archive";
  kharness("archive import " + sh_quote(set.path()) + " --archive " + sh_quote(archive) + " --quiet");
  const std::string eval =
      "eval --definition rmsnorm_h128 --backend cpu --small --archive " + sh_quote(archive);
  kharness(eval + " --baseline");
  std::string parent;
  for (const SolutionEntry& s : ArchiveReader::open(archive).baselines("rmsnorm_h128")) parent = s.content_id;
  ASSERT_FALSE(parent.empty()) << "eval --baseline --archive recorded no baseline";
  kharness(eval + " --solution examples/solutions/rmsnorm_h128_cpu.json --parent " + parent);
  RowId child = 0;
  for (const SolutionEntry& s : ArchiveReader::open(archive).solutions("rmsnorm_h128", 0, 100)) {
    if (s.name == "rmsnorm_h128_cpu_rows") child = s.id;
  }
  ASSERT_GT(child, 0);

  ServeProcess server(archive);
  ASSERT_GT(server.port(), 0) << "kharness serve did not print its port";
  const std::string base = "http://127.0.0.1:" + std::to_string(server.port());

  const std::string index = visit(base + "/", "index");
  EXPECT_TRUE(has(index, "rmsnorm_h128") && has(index, "toy_scale")) << index;

  const std::string rms = visit(base + "/definition/rmsnorm_h128", "definition");
  EXPECT_TRUE(has(rms, "rmsnorm_h128_cpu_rows")) << rms;
  EXPECT_TRUE(has(rms, "baseline: rmsnorm_h128_baseline_cpp"));
  EXPECT_TRUE(has(rms, "id=\"plot-roofline\"") && has(rms, "class=\"roof\""));
  EXPECT_GE(std::count(rms.begin(), rms.end(), '\n'), 10);

  const std::string toy = visit(base + "/definition/toy_scale", "definition-imported");
  EXPECT_TRUE(has(toy, "toy_fast") && has(toy, "toy_broken") && has(toy, "class=\"mark bar\""));

  const std::string cand = visit(base + "/candidate/" + std::to_string(child), "candidate");
  EXPECT_TRUE(has(cand, "Diff against parent rmsnorm_h128_baseline_cpp")) << cand;
  EXPECT_TRUE(has(cand, "class=\"add\"") && has(cand, "class=\"del\""));
  EXPECT_TRUE(has(cand, "id=\"traces\"") && has(cand, "status-PASSED"));
  EXPECT_TRUE(has(cand, "class=\"lineage\""));

  const std::string history = visit(base + "/definition/rmsnorm_h128/history", "history");
  EXPECT_TRUE(has(history, "ul class=\"tree\"") && has(history, "rmsnorm_h128_cpu_rows"));

  const std::string missing = visit(base + "/candidate/987654", "not-found");
  EXPECT_TRUE(has(missing, "No solution with id 987654"));
}

}  // namespace
}  // namespace kh::report
