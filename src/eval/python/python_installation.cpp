#include "eval/python/python_installation.h"

#include <fmt/format.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "base/executable_lookup.h"
#include "base/process_runner.h"
#include "error/error.h"

namespace kh::python {

namespace {

// Printed by the interpreter as one JSON line. LIBDIR may be a build-time path for
// relocated installs (conda, uv), so <base_prefix>/lib is tried too, and the bare names
// last, for the dynamic linker's own search path.
constexpr const char* kDescribe = R"PY(
import json, os, site, sys, sysconfig
v = sysconfig.get_config_vars()
names = [n for n in (v.get("INSTSONAME"), v.get("LDLIBRARY")) if n and ".so" in n]
dirs = [d for d in (v.get("LIBDIR"), os.path.join(sys.base_prefix, "lib"), v.get("LIBPL")) if d]
sites = list(getattr(site, "getsitepackages", lambda: [])())
if site.ENABLE_USER_SITE:
    sites.append(site.getusersitepackages())
print(json.dumps({
    "version": "%d.%d" % sys.version_info[:2],
    "shared": bool(v.get("Py_ENABLE_SHARED")),
    "libraries": [os.path.join(d, n) for n in names for d in dirs] + names,
    "executable": sys.executable,
    "prefix": sys.prefix, "exec_prefix": sys.exec_prefix,
    "base_prefix": sys.base_prefix, "base_exec_prefix": sys.base_exec_prefix,
    "path": [p for p in sys.path if p],
    "site": sites,
}))
)PY";

}  // namespace

PythonInstallation discover_python() {
  const auto exe = detail::find_compiler("KHARNESS_PYTHON", "python3", {});
  if (!exe) {
    throw Error(Location{"", 0, "KHARNESS_PYTHON"},
                "no python3 on PATH: Python and Triton solutions (and PyTorch references) need a Python 3 "
                "with torch; install one or set KHARNESS_PYTHON to its interpreter");
  }
  ProcessSpec spec;
  spec.argv = {exe->string(), "-c", kDescribe};
  spec.role = "python3";
  RunOptions options;
  options.timeout = std::chrono::seconds(60);
  const ProcessRun run = run_process(std::move(spec), options);
  if (run.exit_code() != 0 || run.timed_out) {
    throw Error(Location{exe->string(), 0, ""},
                fmt::format("cannot ask this Python where it lives (exit {}): {}", run.exit_code(), run.out));
  }
  nlohmann::json d;
  try {
    // Warnings the interpreter prints on stderr may surround the one JSON line.
    const std::size_t begin = run.out.find('{');
    const std::size_t end = run.out.rfind('}');
    d = nlohmann::json::parse(run.out.substr(begin, end + 1 - begin));
  } catch (const std::exception&) {
    throw Error(Location{exe->string(), 0, ""}, fmt::format("unreadable self-description: {}", run.out));
  }
  PythonInstallation p;
  p.executable = *exe;
  p.version = d.at("version").get<std::string>();
  p.shared = d.at("shared").get<bool>();
  p.libraries = d.at("libraries").get<std::vector<std::string>>();
  const auto base = d.at("base_prefix").get<std::string>();
  const auto base_exec = d.at("base_exec_prefix").get<std::string>();
  p.home = base == base_exec ? base : base + ":" + base_exec;
  p.settings_json = nlohmann::json{{"path", d.at("path")},
                                   {"site", d.at("site")},
                                   {"executable", d.at("executable")},
                                   {"prefix", d.at("prefix")},
                                   {"exec_prefix", d.at("exec_prefix")}}
                        .dump();
  p.folders = {exe->parent_path(), base, base_exec, d.at("prefix").get<std::string>(),
               d.at("exec_prefix").get<std::string>()};
  for (const char* list : {"path", "site"})
    for (const auto& entry : d.at(list)) p.folders.emplace_back(entry.get<std::string>());
  return p;
}

}  // namespace kh::python
