// PythonInstallation: the Python 3 the worker embeds, as that interpreter describes
// itself.
//
// The interpreter is $KHARNESS_PYTHON (a path, or a name searched on $PATH), else
// `python3` on $PATH. The worker runs it once (never the orchestrator, and never with a
// solution's code) to read where its shared libpython lives and which module path it
// uses, so a virtual environment's packages (torch, triton) are found by the embedded
// interpreter exactly as by the command line.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kh::python {

struct PythonInstallation {
  std::filesystem::path executable;    // as found (a venv's python, not its base)
  std::string version;                 // "3.11"
  bool shared = false;                 // built with --enable-shared (has a libpython to load)
  std::vector<std::string> libraries;  // libpython candidates: paths first, then bare names
  std::string home;                    // PYTHONHOME for the embedded interpreter: "prefix[:exec_prefix]"
  std::string settings_json;           // what the driver's configure() takes: path, site dirs, prefixes
  // Every folder the interpreter reads from (prefixes, module path, site dirs, the
  // executable's): what a jailed worker must be shown, read-only, to run it.
  std::vector<std::filesystem::path> folders;
};

// Finds and asks the interpreter. Throws kh::Error saying what to install or set when
// there is no Python 3 or it cannot be run.
[[nodiscard]] PythonInstallation discover_python();

}  // namespace kh::python
