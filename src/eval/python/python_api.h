// The part of the CPython C API that the worker uses, resolved from a libpython loaded
// at run time (dlopen), so that one kharness binary serves whichever Python 3 the user
// runs. Only functions that every CPython 3.8+ exports with an unchanged signature are
// listed; objects are opaque. No Python header is needed to build kharness.
#pragma once

#include <cstdint>
#include <string>

namespace kh::python {

struct PyObject;  // opaque: only ever handled by pointer
using PyCapsuleDestructor = void (*)(PyObject*);

inline constexpr int kFileInput = 257;  // Py_file_input

struct Api {
  void (*Py_InitializeEx)(int);
  int (*Py_IsInitialized)();
  const char* (*Py_GetVersion)();
  void* (*PyEval_SaveThread)();
  int (*PyGILState_Ensure)();
  void (*PyGILState_Release)(int);
  PyObject* (*Py_CompileString)(const char*, const char*, int);
  PyObject* (*PyImport_ExecCodeModule)(const char*, PyObject*);
  PyObject* (*PyObject_GetAttrString)(PyObject*, const char*);
  PyObject* (*PyObject_CallObject)(PyObject*, PyObject*);
  PyObject* (*PyObject_Str)(PyObject*);
  PyObject* (*PyTuple_New)(std::intptr_t);
  int (*PyTuple_SetItem)(PyObject*, std::intptr_t, PyObject*);  // steals the item
  PyObject* (*PyLong_FromLongLong)(long long);
  PyObject* (*PyFloat_FromDouble)(double);
  PyObject* (*PyBool_FromLong)(long);
  PyObject* (*PyUnicode_FromString)(const char*);
  const char* (*PyUnicode_AsUTF8)(PyObject*);
  PyObject* (*PyCapsule_New)(void*, const char*, PyCapsuleDestructor);
  void* (*PyCapsule_GetPointer)(PyObject*, const char*);
  int (*PyCapsule_IsValid)(PyObject*, const char*);
  void (*PyErr_Fetch)(PyObject**, PyObject**, PyObject**);
  void (*PyErr_Clear)();
  void (*Py_IncRef)(PyObject*);
  void (*Py_DecRef)(PyObject*);
};

// Resolves every function of Api in the library `handle` (from dlopen). Throws kh::Error
// naming the first symbol that is missing.
[[nodiscard]] Api resolve_api(void* handle, const std::string& library);

}  // namespace kh::python
