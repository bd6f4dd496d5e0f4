// The generated translation unit that binds a candidate's entry function to the
// kharness entry ABI (include/kharness/entry.h).
//
// The shim #includes the solution's entry file, so the entry function's exact type
// is visible to it. It then
//   - checks that type against the definition's signature with one static_assert
//     per argument (plus arity and return type); each message starts with
//     "kharness: entry '<function>'" and names the argument, so a mismatch is a
//     COMPILE_ERROR whose first error line says what to fix;
//   - defines kh_entry_v1 (unpacks kh_arg[] into the C types, calls the function,
//     turns a C++ exception into KH_ENTRY_EXCEPTION + kh_last_error), kh_abi_version,
//     kh_signature and kh_last_error, all extern "C".
#pragma once

#include <string>
#include <string_view>

#include "compile/kernel_signature.h"

namespace kh {

// Bumped whenever the generated code changes, so cached builds are redone.
inline constexpr int kEntryShimFormat = 1;

// Every static_assert message of the shim starts with this.
inline constexpr std::string_view kShimMessagePrefix = "kharness: entry '";

struct EntryShim {
  std::string file_name;  // "kh_entry_shim.cu" or "kh_entry_shim.cpp"
  std::string content;
};

// `entry_include` is the entry file's path as the shim #includes it (relative to
// the shim's directory); `extension` is the toolchain's shim extension (".cu").
// Throws kh::Error if the signature is invalid (see validate()).
[[nodiscard]] EntryShim generate_entry_shim(const KernelSignature& sig, std::string_view entry_include,
                                            std::string_view extension);

// `s` as the body of a C string literal (quotes, backslashes and control
// characters escaped).
[[nodiscard]] std::string c_string_literal(std::string_view s);

}  // namespace kh
