// The content address of a build.
#pragma once

#include <filesystem>
#include <string>

#include "compile/build_request.h"
#include "compile/entry_shim.h"
#include "compile/toolchain.h"

namespace kh::detail {

// SHA-256 (hex) over everything that can change the library: the key format, the
// language, arch, toolchain name and version, the toolchain's fixed flags, the
// request's extra flags and defines, the entry file and function, the signature
// text, the generated shim (which embeds the shim format and the expected types),
// the ABI headers the candidate compiles against, and each source's path and
// content. Every field is length-prefixed (Sha256::update_field), so no two
// different field sequences hash the same bytes. The timeout is left out: it
// changes whether a build finishes, not what it produces.
[[nodiscard]] std::string build_key(const BuildRequest& request, const Toolchain& toolchain,
                                    const std::filesystem::path& include_dir, const EntryShim& shim);

}  // namespace kh::detail
