// Building many solutions at once, a bounded number of compilers at a time.
#pragma once

#include <vector>

#include "compile/build_cache.h"
#include "compile/build_request.h"

namespace kh {

// Builds every request through `cache` with at most `jobs` (>= 1; values below
// are treated as 1) compilers running at once. Results come back in request
// order. A request that build() rejects with kh::Error (a bad source path, say)
// does not stop the others: its result is compile_error with the error's text as
// message and log, because to the caller a candidate that cannot be built is a
// candidate that did not compile. Other exceptions propagate after all workers
// have stopped.
[[nodiscard]] std::vector<BuildResult> build_all(const BuildCache& cache,
                                                 const std::vector<BuildRequest>& requests, int jobs);

}  // namespace kh
