// A stored profile (profile.json, as `kharness profile` wrote it) diagnosed again with today's
// rule table (diagnosis_rules.h): the measured evidence (latency, speed-of-light fraction, ncu
// metrics per kernel, static warnings) stays as it was; each regime with ncu metrics gets its
// bottleneck, reason and directions anew. For reports made before a rule changed, without
// another run on the GPU.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kh::profile {

// `profile` with every regime that holds kernels re-diagnosed, and "rediagnosed": true. Regimes
// without ncu metrics keep their stored diagnosis (the stored report lacks the speed-of-light
// bound a model-only label needs). Throws kh::Error naming `source` and the field on a
// malformed document.
[[nodiscard]] nlohmann::ordered_json rediagnose(const nlohmann::ordered_json& profile,
                                                const std::string& source);

}  // namespace kh::profile
