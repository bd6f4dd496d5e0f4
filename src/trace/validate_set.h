// Validating a whole trace set: every object's own rules plus the cross-file ones
// (unknown definitions, duplicate names, missing safetensors blobs).
#pragma once

#include <vector>

#include "trace/diagnostic.h"
#include "trace/trace_set.h"

namespace kh {

struct ValidateOptions {
  // A safetensors blob missing on disk is a warning, or an error when strict.
  bool strict = false;
  // Look for blobs on disk at all (off for sets built in memory).
  bool check_blobs = true;
};

// The set's loading diagnostics followed by the validation ones, in load order.
[[nodiscard]] std::vector<Diagnostic> validate_set(const TraceSet& set, const ValidateOptions& options = {});

}  // namespace kh
