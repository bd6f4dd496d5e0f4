// Starts archive_test_writer as a child process with its stdout on a pipe, for the
// concurrency and kill -9 tests.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace kh::archive::test {

class WriterProcess {
 public:
  WriterProcess(const std::string& archive, const std::string& tag, int runs, int traces_per_run) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    std::vector<std::string> args = {ARCHIVE_TEST_WRITER, archive, tag, std::to_string(runs),
                                     std::to_string(traces_per_run)};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, ARCHIVE_TEST_WRITER, &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    out_ = fds[0];
  }
  ~WriterProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
  }
  WriterProcess(const WriterProcess&) = delete;
  WriterProcess& operator=(const WriterProcess&) = delete;

  [[nodiscard]] bool started() const { return pid_ > 0; }
  void kill_now() const { kill(pid_, SIGKILL); }

  // Reads its output to the end and reaps it; returns the wait status.
  int finish() {
    std::string text;
    char buf[4096];
    ssize_t n = 0;
    while ((n = read(out_, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
      if (n > 0) text.append(buf, static_cast<std::size_t>(n));
    }
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    std::istringstream lines(text);
    std::string word;
    long long id = 0;
    while (lines >> word >> id)
      if (word == "committed") committed_.insert(id);
    return status;
  }
  // The run ids it reported as committed.
  [[nodiscard]] const std::set<long long>& committed() const { return committed_; }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  bool reaped_ = false;
  std::set<long long> committed_;
};

}  // namespace kh::archive::test
