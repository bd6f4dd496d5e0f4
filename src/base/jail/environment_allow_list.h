// The environment of a jailed child: built from an allow-list, never inherited whole,
// so that API keys, tokens and whatever else kharness holds stay with kharness.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kh {

// Whether kharness passes this variable of its own environment into a jail: the
// loader's and the GPU runtime's settings (PATH, LD_LIBRARY_PATH, LANG, LC_*, TZ,
// CUDA_*, NVIDIA_*, OMP_*, GOMP_*, KMP_*), or one of `extra_names`; never a name that
// looks like a secret (…KEY…, …TOKEN…, …SECRET…, …PASSWORD…, …CREDENTIAL…, …AUTH…).
[[nodiscard]] bool allowed_in_jail(std::string_view name, const std::vector<std::string>& extra_names);

// Whether a variable's name looks like a secret; under a profiler, where the
// environment is otherwise inherited (the profiler's injection lives there), these go,
// except the profiler's own (NV*, CUDA*, NSYS*, NSIGHT*, LD_*).
[[nodiscard]] bool looks_like_secret(std::string_view name);

// NAME=value entries: the allowed variables of this process's environment (all but the
// secret-looking ones when `inherit_all`), then `set` added or overriding, in order.
[[nodiscard]] std::vector<std::string> jail_environment(
    const std::vector<std::string>& extra_names, const std::vector<std::pair<std::string, std::string>>& set,
    bool inherit_all);

}  // namespace kh
