// kharness's public headers for C++/CUDA solutions, as text built into kharness, for
// solutions that leave kharness with the headers they include (an upstream export ships
// them as sources, since flashinfer-bench has no kharness headers).
#pragma once

#include <optional>
#include <string_view>

namespace kh {

// The text of "kharness/kernel.h" or "kharness/host_float.h" as this kharness was built
// with; nullopt for any other path.
[[nodiscard]] std::optional<std::string_view> abi_header_text(std::string_view path) noexcept;

}  // namespace kh
