#include "eval/python/python_api.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include "error/error.h"

namespace kh::python {

namespace {

template <class Fn>
void bind(void* handle, const std::string& library, const char* name, Fn& slot) {
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) {
    throw Error(Location{library, 0, name},
                "this libpython lacks a function kharness calls (not CPython 3?)");
  }
  slot = reinterpret_cast<Fn>(symbol);
}

}  // namespace

Api resolve_api(void* handle, const std::string& library) {
  Api a{};
#define KH_BIND(name) bind(handle, library, #name, a.name)
  KH_BIND(Py_InitializeEx);
  KH_BIND(Py_IsInitialized);
  KH_BIND(Py_GetVersion);
  KH_BIND(PyEval_SaveThread);
  KH_BIND(PyGILState_Ensure);
  KH_BIND(PyGILState_Release);
  KH_BIND(Py_CompileString);
  KH_BIND(PyImport_ExecCodeModule);
  KH_BIND(PyObject_GetAttrString);
  KH_BIND(PyObject_CallObject);
  KH_BIND(PyObject_Str);
  KH_BIND(PyTuple_New);
  KH_BIND(PyTuple_SetItem);
  KH_BIND(PyLong_FromLongLong);
  KH_BIND(PyFloat_FromDouble);
  KH_BIND(PyBool_FromLong);
  KH_BIND(PyUnicode_FromString);
  KH_BIND(PyUnicode_AsUTF8);
  KH_BIND(PyCapsule_New);
  KH_BIND(PyCapsule_GetPointer);
  KH_BIND(PyCapsule_IsValid);
  KH_BIND(PyErr_Fetch);
  KH_BIND(PyErr_Clear);
  KH_BIND(Py_IncRef);
  KH_BIND(Py_DecRef);
#undef KH_BIND
  return a;
}

}  // namespace kh::python
