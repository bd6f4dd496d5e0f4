// Interpreter: the CPython embedded in a measurement worker, one per process.
//
// libpython is found at run time (python_installation.h) and loaded with dlopen, with
// RTLD_GLOBAL because extension modules (torch's) take the C API from the global scope.
// The interpreter starts without signal handlers (the worker's own stay), runs kharness's
// driver module (kernel_driver.py, built into the binary) and then releases the GIL:
// every entry into Python takes it (Gil), and leaves it free while the harness works, so
// that a thread a solution started keeps running where the harness can see it.
#pragma once

#include <string>

#include "eval/python/python_api.h"

namespace kh::python {

class Interpreter {
 public:
  // The process's interpreter, started on first use. Throws kh::Error saying what is
  // missing when Python cannot be embedded (and the same error again on later calls).
  [[nodiscard]] static Interpreter& instance();

  Interpreter(const Interpreter&) = delete;  // one interpreter per process
  Interpreter& operator=(const Interpreter&) = delete;

  [[nodiscard]] const Api& api() const noexcept { return api_; }
  // The driver module (kernel_driver.py). Borrowed; valid for the process's life.
  [[nodiscard]] PyObject* driver() const noexcept { return driver_; }
  [[nodiscard]] const std::string& description() const noexcept { return description_; }

  // The pending Python exception as text (its str), cleared. Call with the GIL held.
  [[nodiscard]] std::string take_error() const;

 private:
  Interpreter();
  void run_driver(const std::string& settings_json);

  Api api_{};
  PyObject* driver_ = nullptr;
  std::string description_;  // "Python 3.11.2 (/usr/bin/python3)"
};

// Holds the GIL for its scope (PyGILState_Ensure / Release).
class Gil {
 public:
  explicit Gil(const Api& api) : api_(api), state_(api.PyGILState_Ensure()) {}
  Gil(const Gil&) = delete;  // released exactly once
  Gil& operator=(const Gil&) = delete;
  ~Gil() { api_.PyGILState_Release(state_); }

 private:
  const Api& api_;
  int state_;
};

// An owned reference, released with Py_DecRef. Create, move and destroy it only with the
// GIL held.
class Ref {
 public:
  Ref() = default;
  Ref(const Api& api, PyObject* owned) : api_(&api), object_(owned) {}
  Ref(Ref&& other) noexcept : api_(other.api_), object_(other.release()) {}
  Ref& operator=(Ref&& other) noexcept {
    if (this != &other) {
      reset();
      api_ = other.api_;
      object_ = other.release();
    }
    return *this;
  }
  Ref(const Ref&) = delete;  // one owner per reference
  Ref& operator=(const Ref&) = delete;
  ~Ref() { reset(); }

  [[nodiscard]] PyObject* get() const noexcept { return object_; }
  [[nodiscard]] explicit operator bool() const noexcept { return object_ != nullptr; }
  PyObject* release() noexcept {
    PyObject* o = object_;
    object_ = nullptr;
    return o;
  }
  void reset() noexcept {
    if (object_ != nullptr) api_->Py_DecRef(object_);
    object_ = nullptr;
  }

 private:
  const Api* api_ = nullptr;
  PyObject* object_ = nullptr;
};

}  // namespace kh::python
