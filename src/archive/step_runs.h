// The optimisation loop's evaluations in the archive. A run the loop writes carries its
// step key ("<loop>/r<round>/<phase>/<content id>") as the last two words of its recorded
// command line, `--step <key>`, so that the key is sealed with the run and a resumed loop
// finds what it already measured. These functions are the only code that knows how the
// key is stored.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "archive/archive.h"
#include "archive/index_rows.h"

namespace kh::archive {

// Appends `--step <key>` to the command line a step's run is recorded with.
void append_step_key(std::vector<std::string>& command_line, std::string_view key);

// The run recorded for a step, if any (the first, when it was measured again).
[[nodiscard]] std::optional<RowId> find_step_run(Archive& archive, std::string_view key);
// Every run recorded for a step, oldest first.
[[nodiscard]] std::vector<RowId> find_step_runs(Archive& archive, std::string_view key);

}  // namespace kh::archive
