// JailSpec: what a jailed child may see and use (docs/worker.md, "The jail").
//
// Everything not named here (and not a system folder, see system_paths.h) is absent
// from the child's view: the archive, the build cache, home folders, the host's /tmp,
// other runs. The spec is general: a worker names the kharness binary and its inputs,
// a compiler its toolkit and build folder, a Python worker its interpreter's folders.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/jail/sandbox_mode.h"

namespace kh {

struct JailSpec {
  std::optional<SandboxMode> mode;  // unset: the process's sandbox_mode()

  // Files or folders shown read-only at the same path (the program itself among them).
  std::vector<std::filesystem::path> read_only;
  // Folders shown read-write at the same path (a compiler's build folder).
  std::vector<std::filesystem::path> writable;

  // The child's own folder: its cwd, HOME and TMPDIR, the one place it may write. With
  // scratch_bytes set it is a fresh in-memory file system of that size mounted over the
  // host folder, so a candidate that fills it fills nothing of the host (and cannot see
  // what the host keeps there); without a mount namespace, or unset, it is the host
  // folder itself.
  std::filesystem::path scratch;
  std::optional<std::uint64_t> scratch_bytes;

  bool gpu = false;  // the NVIDIA device nodes (/dev/nvidia*, nvidia-uvm, nvidia-caps)
  // Variables passed through from kharness's environment besides the allow-list
  // (environment_allow_list.h); ProcessSpec::env is always passed.
  std::vector<std::string> env_names;

  // False: never the namespace level, even where the machine allows it (best mode's
  // fallback for a program that does not work inside the full jail).
  bool allow_namespaces = true;
};

}  // namespace kh
