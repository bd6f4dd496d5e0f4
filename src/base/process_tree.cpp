#include "base/process_tree.h"

#include <filesystem>
#include <fstream>
#include <string>

namespace kh {

namespace {

// The pids in every task's children file of one process: a child belongs to the thread
// that forked it, so one file per thread.
void add_children(pid_t process, std::vector<pid_t>& pids) {
  std::error_code ec;
  const std::filesystem::path tasks = std::filesystem::path("/proc") / std::to_string(process) / "task";
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream in(task.path() / "children");
    for (pid_t pid = 0; in >> pid;) pids.push_back(pid);
  }
}

}  // namespace

std::vector<pid_t> child_processes(pid_t parent) {
  std::vector<pid_t> pids;
  add_children(parent, pids);
  return pids;
}

std::vector<pid_t> descendant_processes(pid_t root, std::size_t limit) {
  std::vector<pid_t> pids;
  add_children(root, pids);
  for (std::size_t i = 0; i < pids.size() && pids.size() < limit; ++i) add_children(pids[i], pids);
  if (pids.size() > limit) pids.resize(limit);
  return pids;
}

}  // namespace kh
