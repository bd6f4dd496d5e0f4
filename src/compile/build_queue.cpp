#include "compile/build_queue.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "error/error.h"

namespace kh {

namespace {
BuildResult build_one(const BuildCache& cache, const BuildRequest& request) {
  try {
    return cache.build(request);
  } catch (const Error& e) {
    BuildResult rejected;
    rejected.status = BuildResult::Status::compile_error;
    rejected.message = e.what();
    rejected.log = std::string("kharness: the build was rejected before compiling: ") + e.what() + "\n";
    return rejected;
  }
}
}  // namespace

std::vector<BuildResult> build_all(const BuildCache& cache, const std::vector<BuildRequest>& requests,
                                   int jobs) {
  std::vector<BuildResult> results(requests.size());
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::exception_ptr failure;

  auto worker = [&] {
    for (std::size_t i = next++; i < requests.size(); i = next++) {
      try {
        results[i] = build_one(cache, requests[i]);
      } catch (...) {  // carried to the caller's thread and rethrown there, not dropped
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        return;
      }
    }
  };
  const std::size_t threads =
      std::min<std::size_t>(static_cast<std::size_t>(std::max(jobs, 1)), requests.size());
  std::vector<std::jthread> pool;
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  pool.clear();  // joins
  if (failure) std::rethrow_exception(failure);
  return results;
}

}  // namespace kh
