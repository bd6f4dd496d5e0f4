// The normalised content hash of a solution: two candidates that differ only in
// whitespace, comments or the order of their source files hash the same; any change to
// the code, a knob #define, a file's path or the entry point changes it. The loop uses it
// to notice that an agent proposed what was already tried.
//
// Normalisation works on C, C++ and CUDA tokens: comments become token separators,
// whitespace between tokens is dropped unless removing it would join two tokens
// (identifiers, numbers, or operators such as "- -"), string and character literals are
// kept byte for byte, and preprocessor lines keep their line ends and their single
// spaces (a space before "(" in a #define is meaningful).
#pragma once

#include <string>
#include <string_view>

#include "trace/solution.h"

namespace kh::control {

// One source file's normalised text.
[[nodiscard]] std::string normalise_source(std::string_view code);

// SHA-256 (64 hex digits) over the language, entry point and the (path, normalised
// content) pairs sorted by path.
[[nodiscard]] std::string normalised_content_hash(const Solution& solution);

}  // namespace kh::control
