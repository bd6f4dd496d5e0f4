#include "eval/python/python_interpreter.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <mutex>

#include "error/error.h"
#include "eval/python/kernel_driver_source.h"
#include "eval/python/python_installation.h"

namespace kh::python {

namespace {

// dlopen()s the first libpython candidate that loads. RTLD_GLOBAL: extension modules
// are not linked against libpython and find the C API in the global scope.
std::pair<void*, std::string> open_libpython(const PythonInstallation& p) {
  std::string tried;
  for (const std::string& library : p.libraries) {
    if (void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL)) return {handle, library};
    const char* why = dlerror();
    tried += fmt::format("\n  {}: {}", library, why ? why : "not loadable");
  }
  throw Error(Location{p.executable.string(), 0, ""},
              fmt::format("Python {} has no loadable shared libpython{}{}; kharness embeds Python in its "
                          "worker: install the shared library (Debian: libpython{}) or set KHARNESS_PYTHON "
                          "to a Python built with --enable-shared",
                          p.version, p.shared ? "" : " (built without --enable-shared)",
                          tried.empty() ? "" : ", tried:" + tried, p.version));
}

// "3.11.2 (main, ...)" belongs to "3.11"; "3.110" would not.
bool same_version(const char* running, const std::string& wanted) {
  const std::string r = running ? running : "";
  return r.compare(0, wanted.size(), wanted) == 0 &&
         (r.size() == wanted.size() || std::isdigit(static_cast<unsigned char>(r[wanted.size()])) == 0);
}

}  // namespace

Interpreter& Interpreter::instance() {
  static std::once_flag once;
  static Interpreter* interpreter = nullptr;  // never destroyed: Python outlives every request
  static std::string failure;
  std::call_once(once, [] {
    try {
      interpreter = new Interpreter();
    } catch (const Error& e) {
      failure = e.what();  // kept: every later solution gets the same explanation
    }
  });
  if (interpreter == nullptr) throw Error("cannot embed Python: " + failure);
  return *interpreter;
}

Interpreter::Interpreter() {
  const PythonInstallation install = discover_python();
  const auto [handle, library] = open_libpython(install);
  api_ = resolve_api(handle, library);
  if (!same_version(api_.Py_GetVersion(), install.version)) {
    throw Error(Location{library, 0, ""},
                fmt::format("is Python {}, but {} is Python {}", api_.Py_GetVersion(),
                            install.executable.string(), install.version));
  }
  if (api_.Py_IsInitialized() == 0) {
    // The standard library of the installation the interpreter came from; its packages
    // (a venv's included) come from the module path the driver sets next.
    ::setenv("PYTHONHOME", install.home.c_str(), 1);
    api_.Py_InitializeEx(0);  // 0: no signal handlers; SIGINT and the rest stay the worker's
  }
  run_driver(install.settings_json);
  description_ = fmt::format("Python {} ({})", install.version, install.executable.string());
  api_.PyEval_SaveThread();  // from here on, every entry takes the GIL (Gil)
}

// Runs the driver module and gives it the module path. The references die here, while
// the GIL is still held.
void Interpreter::run_driver(const std::string& settings_json) {
  const Ref code(api_, api_.Py_CompileString(kKernelDriverSource, "<kharness kernel_driver.py>", kFileInput));
  if (!code) throw Error("kharness's Python driver does not compile: " + take_error());
  driver_ = api_.PyImport_ExecCodeModule("_kharness_driver", code.get());
  if (driver_ == nullptr) throw Error("kharness's Python driver does not run: " + take_error());
  const Ref configure(api_, api_.PyObject_GetAttrString(driver_, "configure"));
  const Ref args(api_, api_.PyTuple_New(1));
  api_.PyTuple_SetItem(args.get(), 0, api_.PyUnicode_FromString(settings_json.c_str()));
  const Ref done(api_, configure ? api_.PyObject_CallObject(configure.get(), args.get()) : nullptr);
  if (!done) throw Error("cannot set up the embedded Python's module path: " + take_error());
}

std::string Interpreter::take_error() const {
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
  api_.PyErr_Fetch(&type, &value, &traceback);
  Ref t(api_, type);
  Ref v(api_, value);
  Ref tb(api_, traceback);
  PyObject* what = v ? v.get() : t.get();
  if (what == nullptr) return "unknown Python error";
  Ref text(api_, api_.PyObject_Str(what));
  const char* utf8 = text ? api_.PyUnicode_AsUTF8(text.get()) : nullptr;
  if (utf8 == nullptr) {
    api_.PyErr_Clear();
    return "Python error (not printable)";
  }
  return utf8;
}

}  // namespace kh::python
