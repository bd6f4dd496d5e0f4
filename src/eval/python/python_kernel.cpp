#include "eval/python/python_kernel.h"

#include <fmt/format.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "error/error.h"
#include "eval/python/dlpack_capsule.h"

namespace kh {

namespace {

using python::Api;
using python::Gil;
using python::Interpreter;
using python::PyObject;
using python::Ref;

// obj.name as text; "" when it is absent or not a string.
std::string text_attribute(const Api& api, PyObject* obj, const char* name) {
  Ref value(api, api.PyObject_GetAttrString(obj, name));
  const char* utf8 = value ? api.PyUnicode_AsUTF8(value.get()) : nullptr;
  if (utf8 == nullptr) {
    api.PyErr_Clear();
    return {};
  }
  return utf8;
}

// Calls obj.method(args...) where args are new references (stolen). nullptr with a
// Python error set on failure.
Ref call_method(const Api& api, PyObject* obj, const char* method, std::initializer_list<PyObject*> args) {
  Ref tuple(api, api.PyTuple_New(static_cast<std::intptr_t>(args.size())));
  std::intptr_t i = 0;
  for (PyObject* a : args) api.PyTuple_SetItem(tuple.get(), i++, a);
  Ref fn(api, api.PyObject_GetAttrString(obj, method));
  if (!fn) return {};
  return Ref(api, api.PyObject_CallObject(fn.get(), tuple.get()));
}

// The driver's answer to run(): "" or "STATUS\nwhy".
CallResult parse_outcome(const std::string& text) {
  if (text.empty()) return {};
  const std::size_t newline = text.find('\n');
  const std::string head = text.substr(0, newline);
  const std::string why = newline == std::string::npos ? std::string() : text.substr(newline + 1);
  const std::optional<EvalStatus> status = parse_status(head);
  if (!status || *status == EvalStatus::passed) return CallResult::failed(text);
  return CallResult::failed(why, *status);
}

class PythonCall final : public PreparedCall {
 public:
  PythonCall(const Interpreter& python, Ref run) : python_(python), run_(std::move(run)) {}
  PythonCall(const PythonCall&) = delete;  // owns a reference, released under the GIL
  PythonCall& operator=(const PythonCall&) = delete;
  ~PythonCall() override {
    const Gil gil(python_.api());
    run_.reset();
  }

  CallResult run() override {
    const Api& api = python_.api();
    const Gil gil(api);
    const Ref outcome(api, api.PyObject_CallObject(run_.get(), nullptr));
    if (!outcome) return CallResult::failed("the Python driver failed: " + python_.take_error());
    const char* text = api.PyUnicode_AsUTF8(outcome.get());
    if (text == nullptr) return CallResult::failed("the Python driver failed: " + python_.take_error());
    return parse_outcome(text);
  }

 private:
  const Interpreter& python_;
  Ref run_;  // the prepared driver Call's bound run()
};

// A call that failed before it could be made; reports why when run.
class FailedCall final : public PreparedCall {
 public:
  explicit FailedCall(std::string why) : why_(std::move(why)) {}
  CallResult run() override { return CallResult::failed(why_); }

 private:
  std::string why_;
};

PyObject* to_python(const Api& api, const kh_arg& arg, DType dtype) {
  switch (arg.kind) {
    case KH_ARG_TENSOR:
      return python::make_capsule(api, *arg.value.tensor, dtype);
    case KH_ARG_INT64:
      return api.PyLong_FromLongLong(arg.value.i64);
    case KH_ARG_FLOAT64:
      return api.PyFloat_FromDouble(arg.value.f64);
    case KH_ARG_BOOL:
      return api.PyBool_FromLong(arg.value.b ? 1 : 0);
    default:
      return nullptr;
  }
}

}  // namespace

std::unique_ptr<PythonKernel> PythonKernel::open(const PythonLoad& load, Backend& backend) {
  Interpreter& python = Interpreter::instance();
  const Api& api = python.api();
  const Gil gil(api);
  nlohmann::json params = nlohmann::json::array();
  std::vector<DType> dtypes;
  for (const KernelParam& p : load.signature.params) {
    params.push_back({{"name", p.name}, {"role", role_name(p.role)}, {"dtype", dtype_name(p.dtype)}});
    dtypes.push_back(p.dtype);
  }
  const bool cuda = backend.info().backend == "cuda";
  const nlohmann::json spec = {{"root", load.root.string()},
                               {"package", load.package},
                               {"module", load.module},
                               {"function", load.function},
                               {"destination_passing", load.destination_passing},
                               {"params", params},
                               {"device_type", cuda ? "cuda" : "cpu"},
                               {"device_index", backend.device_ordinal()}};
  Ref solution =
      call_method(api, python.driver(), "open_solution", {api.PyUnicode_FromString(spec.dump().c_str())});
  if (!solution) throw Error("the Python driver failed: " + python.take_error());
  if (std::string why = text_attribute(api, solution.get(), "unavailable"); !why.empty()) {
    throw Error(fmt::format("{}: {}", python.description(), why));
  }
  if (std::string why = text_attribute(api, solution.get(), "rejected"); !why.empty()) {
    throw KernelRejected(Location{load.root.string(), 0, ""}, why);
  }
  return std::unique_ptr<PythonKernel>(new PythonKernel(python, std::move(solution), std::move(dtypes)));
}

PythonKernel::~PythonKernel() {
  const Gil gil(python_.api());
  solution_.reset();
}

std::unique_ptr<PreparedCall> PythonKernel::prepare(const std::vector<kh_arg>& args, void* stream) const {
  const Api& api = python_.api();
  const Gil gil(api);
  Ref values(api, api.PyTuple_New(static_cast<std::intptr_t>(args.size())));
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::size_t index = static_cast<std::size_t>(args[i].index);
    if (index >= dtypes_.size()) return std::make_unique<FailedCall>("argument index out of range");
    PyObject* value = to_python(api, args[i], dtypes_[index]);
    if (value == nullptr)
      return std::make_unique<FailedCall>("cannot pass argument: " + python_.take_error());
    api.PyTuple_SetItem(values.get(), static_cast<std::intptr_t>(i), value);
  }
  const auto pointer = static_cast<long long>(reinterpret_cast<std::intptr_t>(stream));
  Ref call =
      call_method(api, solution_.get(), "prepare", {values.release(), api.PyLong_FromLongLong(pointer)});
  Ref run(api, call ? api.PyObject_GetAttrString(call.get(), "run") : nullptr);
  if (!run) return std::make_unique<FailedCall>("the Python driver failed: " + python_.take_error());
  return std::make_unique<PythonCall>(python_, std::move(run));
}

}  // namespace kh
