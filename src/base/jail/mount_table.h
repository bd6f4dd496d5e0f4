// The mount points of this process's mount namespace (/proc/self/mountinfo).
#pragma once

#include <filesystem>
#include <vector>

namespace kh {

// Every mount point, in the order the kernel lists them; empty when it cannot be read.
[[nodiscard]] std::vector<std::filesystem::path> mount_points();

// The mount points strictly beneath `dir` (a jail binds each one of them explicitly, so
// that none comes in writable or unseen with its parent).
[[nodiscard]] std::vector<std::filesystem::path> mount_points_beneath(
    const std::vector<std::filesystem::path>& all, const std::filesystem::path& dir);

}  // namespace kh
