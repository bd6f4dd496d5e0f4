// The name a measurement worker is started under: `kharness __worker --backend B`. The
// orchestrator (measurement_client) starts it and the command line registers it, both
// from this one constant, so the two sides cannot drift apart.
#pragma once

namespace kh {

inline constexpr const char* kWorkerSubcommand = "__worker";

}  // namespace kh
