// make_executor: executors chosen by name. Adding one is one include and one row here.
#include <fmt/format.h>

#include <utility>

#include "error/error.h"
#include "scale/executor.h"
#include "scale/local_executor.h"
#include "scale/slurm_executor.h"

namespace kh::scale {

namespace {

using Factory = std::unique_ptr<Executor> (*)(const ExecutorSettings&);

const std::pair<std::string_view, Factory> kExecutors[] = {
    {"local",
     [](const ExecutorSettings& s) -> std::unique_ptr<Executor> {
       return std::make_unique<LocalExecutor>(s.lanes);
     }},
    {"slurm",
     [](const ExecutorSettings& s) -> std::unique_ptr<Executor> {
       return std::make_unique<SlurmExecutor>(s.slurm, s.on_tasks);
     }},
};

}  // namespace

std::vector<std::string> executor_names() {
  std::vector<std::string> out;
  for (const auto& [name, factory] : kExecutors) out.emplace_back(name);
  return out;
}

std::unique_ptr<Executor> make_executor(const ExecutorSettings& settings) {
  for (const auto& [name, factory] : kExecutors) {
    if (name == settings.name) return factory(settings);
  }
  throw Error(Location{"", 0, "--executor"}, fmt::format("unknown executor '{}' (known: {})", settings.name,
                                                         fmt::join(executor_names(), ", ")));
}

}  // namespace kh::scale
