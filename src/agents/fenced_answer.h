// Candidate files from a chat model's reply: fenced code blocks that name their file.
//
// A block opens with a line of three or more backticks and an info string, and closes
// with a line of at least as many backticks and nothing else. The file is named by
//   - `file=PATH` in the info string (```cpp file=two_rows/kernel.cpp), or
//   - a first line `// file: PATH` (removed from the content) for C, C++ and CUDA.
// Blocks that name no file are prose and ignored. PATH is relative to out/ and must
// pass path_problem() (answer_paths.h); it is checked before anything is written.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kh::agents {

struct FencedFile {
  std::string path;
  std::string content;
};

// The named files, in order; an unterminated block that names a file is an error
// (the reply was cut short), reported through the optional reason.
struct FencedFiles {
  std::vector<FencedFile> files;
  std::optional<std::string> problem;
};

[[nodiscard]] FencedFiles parse_fenced_files(std::string_view reply);

// Writes the files under `out_dir`. Returns why it refused (a bad path, a file named
// twice), having written nothing, or nothing when all were written.
[[nodiscard]] std::optional<std::string> write_fenced_files(const std::vector<FencedFile>& files,
                                                            const std::filesystem::path& out_dir);

}  // namespace kh::agents
