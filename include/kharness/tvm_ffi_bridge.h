/* kharness tvm-ffi bridge: what a generated tvm-ffi entry shim uses (C++17).
 *
 * A solution with `"binding": "tvm-ffi"` exports its entry with apache-tvm-ffi's
 * TVM_FFI_DLL_EXPORT_TYPED_FUNC, exactly as flashinfer-bench builds and calls it. kharness
 * compiles it, unmodified, together with a generated shim (build/tvm_ffi_shim) that
 * includes this header and exports the kharness entry ABI (kharness/entry.h) on top of the
 * tvm-ffi one, so that the worker calls every binding the same way:
 *
 *   - each tensor argument becomes a tvm::ffi::Tensor over the harness's memory (inputs,
 *     then, in destination-passing style, the poisoned outputs); scalars become int64,
 *     double or bool values;
 *   - the harness's stream is the tvm-ffi environment stream (TVMFFIEnvGetStream) for the
 *     call, and is restored after it;
 *   - an error the function raises (TVM_FFI_THROW, TVM_FFI_ICHECK, a C++ exception) comes
 *     back as KH_ENTRY_EXCEPTION with its kind and message;
 *   - a value-returning function's tensors are checked (count, dtype, shape, device) and
 *     copied into the harness's outputs on the call's stream, so the copy is timed as part
 *     of the solution, as flashinfer-bench counts it;
 *   - tvm-ffi's environment allocator (Tensor::FromEnvAlloc) is served from a stream-ordered
 *     memory pool on CUDA and from the heap on the CPU.
 *
 * The compile-time half (callable, arg_ok, returns_ok) lets the shim check the exported
 * function's type against the definition with static_asserts.
 */
#ifndef KHARNESS_TVM_FFI_BRIDGE_H_
#define KHARNESS_TVM_FFI_BRIDGE_H_

#include <kharness/entry.h>
#include <kharness/kernel.h>
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#endif

namespace kh_tvm_ffi {

/* ---- compile time: the exported function's type ------------------------------------ */

struct missing {};
template <int I, class... A>
struct nth {
  using type = missing;
};
template <class H, class... T>
struct nth<0, H, T...> {
  using type = H;
};
template <int I, class H, class... T>
struct nth<I, H, T...> {
  using type = typename nth<I - 1, T...>::type;
};

template <class R, class... A>
struct signature_of {
  static constexpr bool known = true;
  static constexpr int arity = static_cast<int>(sizeof...(A));
  using ret = R;
  template <int I>
  using arg = typename nth<I, A...>::type;
};

template <class M>
struct member_call {
  static constexpr bool known = false;
  static constexpr int arity = -1;
  using ret = void;
  template <int I>
  using arg = missing;
};
template <class C, class R, class... A>
struct member_call<R (C::*)(A...)> : signature_of<R, A...> {};
template <class C, class R, class... A>
struct member_call<R (C::*)(A...) const> : signature_of<R, A...> {};
template <class C, class R, class... A>
struct member_call<R (C::*)(A...) noexcept> : signature_of<R, A...> {};
template <class C, class R, class... A>
struct member_call<R (C::*)(A...) const noexcept> : signature_of<R, A...> {};

/* What TVM_FFI_DLL_EXPORT_TYPED_FUNC was given: a function, a function pointer or a
 * lambda (a class with one operator()). */
template <class F, class = void>
struct callable : member_call<void> {};
template <class R, class... A>
struct callable<R (*)(A...), void> : signature_of<R, A...> {};
template <class R, class... A>
struct callable<R (*)(A...) noexcept, void> : signature_of<R, A...> {};
template <class F>
struct callable<F, std::void_t<decltype(&F::operator())>> : member_call<decltype(&F::operator())> {};

template <class T>
using bare = std::remove_cv_t<std::remove_reference_t<T>>;

template <class T>
constexpr bool is_any_v =
    std::is_same_v<bare<T>, tvm::ffi::Any> || std::is_same_v<bare<T>, tvm::ffi::AnyView>;

template <class T>
constexpr bool is_tensor_v =
    std::is_same_v<bare<T>, tvm::ffi::Tensor> || std::is_same_v<bare<T>, tvm::ffi::TensorView> ||
    std::is_same_v<bare<T>, DLTensor*> || std::is_same_v<bare<T>, const DLTensor*>;

template <class T>
struct is_optional_tensor : std::false_type {};
template <class U>
struct is_optional_tensor<tvm::ffi::Optional<U>> : std::bool_constant<is_tensor_v<U>> {};

/* Whether a parameter of type T takes the value the shim passes for a kh_arg kind. */
template <class T>
constexpr bool takes(int kind) {
  if (is_any_v<T>) return true;
  using B = bare<T>;
  switch (kind) {
    case KH_ARG_TENSOR:
      return is_tensor_v<T> || is_optional_tensor<B>::value;
    case KH_ARG_INT64:  // tvm-ffi converts an int to a float parameter too
      return (std::is_integral_v<B> && !std::is_same_v<B, bool>) || std::is_floating_point_v<B>;
    case KH_ARG_FLOAT64:
      return std::is_floating_point_v<B>;
    case KH_ARG_BOOL:
      return std::is_integral_v<B>;
    default:
      return false;
  }
}

template <class F, int I, int Kind>
constexpr bool arg_ok() {
  using A = typename callable<F>::template arg<I>;
  if constexpr (std::is_same_v<A, missing>) {
    return false;
  } else {
    return takes<A>(Kind);
  }
}

template <class T>
struct tuple_size_of : std::integral_constant<int, -1> {};
template <class... T>
struct tuple_size_of<tvm::ffi::Tuple<T...>> : std::integral_constant<int, static_cast<int>(sizeof...(T))> {};
template <class T>
struct is_array : std::false_type {};
template <class T>
struct is_array<tvm::ffi::Array<T>> : std::true_type {};

/* A value-returning function returns one tensor per output: a Tensor for one output, an
 * Array or a Tuple of them for several (or an Any that holds either). */
template <class F>
constexpr bool returns_ok(int outputs) {
  using R = bare<typename callable<F>::ret>;
  if (is_any_v<R> || is_array<R>::value) return true;
  if (tuple_size_of<R>::value >= 0) return tuple_size_of<R>::value == outputs;
  if (outputs == 1) return std::is_same_v<R, tvm::ffi::Tensor> || is_optional_tensor<R>::value;
  return false;
}

constexpr bool same_name(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) {
    ++a;
    ++b;
  }
  return *a == *b;
}

/* ---- run time ------------------------------------------------------------------------- */

struct Param {
  const char* name;
  int kind;  // a kh_arg_kind
};

struct Entry {
  TVMFFISafeCallType call;
  const char* name;
  const Param* params;  // inputs, then outputs, in definition order
  int inputs;
  int outputs;
  bool destination_passing;
};

inline std::string& last_error() {
  thread_local std::string message;
  return message;
}

inline int fail(int code, std::string message) {
  last_error() = std::move(message);
  return code;
}

inline std::size_t byte_size(const DLTensor& t) {
  std::size_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= static_cast<std::size_t>(t.shape[i]);
  return n * ((static_cast<std::size_t>(t.dtype.bits) * t.dtype.lanes + 7) / 8);
}

/* A DLPack tensor that owns only its shape: the data belongs to someone else (the
 * harness, for borrowed tensors) or is freed by `release` (for the allocator's). */
struct Managed {
  DLManagedTensorVersioned tensor{};
  std::vector<int64_t> shape;
  void (*release)(Managed*) = nullptr;
  void* stream = nullptr;  // where a CUDA block was allocated, for its stream-ordered free
};

inline void delete_managed(DLManagedTensorVersioned* t) {
  Managed* m = static_cast<Managed*>(t->manager_ctx);
  if (m->release != nullptr) m->release(m);
  delete m;
}

inline Managed* managed_like(const DLTensor& t) {
  auto* m = new Managed;
  m->shape.assign(t.shape, t.shape + t.ndim);
  m->tensor.version.major = DLPACK_MAJOR_VERSION;
  m->tensor.version.minor = DLPACK_MINOR_VERSION;
  m->tensor.manager_ctx = m;
  m->tensor.deleter = &delete_managed;
  m->tensor.dl_tensor = t;
  m->tensor.dl_tensor.shape = m->shape.data();
  m->tensor.dl_tensor.strides = nullptr;
  return m;
}

/* The harness's tensor as a tvm::ffi::Tensor, so that TensorView, Tensor and DLTensor*
 * parameters all take it, as they take a torch tensor under flashinfer-bench. */
inline tvm::ffi::Tensor borrow(const DLTensor* t) {
  return tvm::ffi::Tensor::FromDLPackVersioned(&managed_like(*t)->tensor);
}

#ifdef __CUDACC__
inline void release_cuda(Managed* m) {
  (void)cudaFreeAsync(m->tensor.dl_tensor.data, static_cast<cudaStream_t>(m->stream));
}
#endif
inline void release_host(Managed* m) { std::free(m->tensor.dl_tensor.data); }

/* tvm-ffi's environment allocator (Tensor::FromEnvAlloc). On CUDA, blocks come from the
 * device's stream-ordered pool on the call's stream, kept by the pool between calls as a
 * caching allocator keeps them. */
inline int allocate(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                    void (*set_error)(void*, const char*, const char*)) {
  const std::size_t bytes = byte_size(*prototype);
  void* data = nullptr;
  Managed* m = managed_like(*prototype);
  m->tensor.dl_tensor.byte_offset = 0;
  if (prototype->device.device_type == kDLCUDA) {
#ifdef __CUDACC__
    cudaStream_t stream = static_cast<cudaStream_t>(TVMFFIEnvGetStream(kDLCUDA, prototype->device.device_id));
    const cudaError_t rc = cudaMallocAsync(&data, bytes == 0 ? 1 : bytes, stream);
    if (rc != cudaSuccess) {
      delete m;
      set_error(error_ctx, "RuntimeError", cudaGetErrorString(rc));
      return -1;
    }
    m->release = &release_cuda;
    m->stream = stream;
#else
    delete m;
    set_error(error_ctx, "RuntimeError", "kharness: a C++ solution cannot allocate CUDA memory");
    return -1;
#endif
  } else if (prototype->device.device_type == kDLCPU) {
    data = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    if (data == nullptr) {
      delete m;
      set_error(error_ctx, "RuntimeError", "out of host memory");
      return -1;
    }
    m->release = &release_host;
  } else {
    delete m;
    set_error(error_ctx, "RuntimeError", "kharness: the allocator serves CPU and CUDA tensors only");
    return -1;
  }
  m->tensor.dl_tensor.data = data;
  *out = &m->tensor;
  return 0;
}

inline void install_allocator() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (TVMFFIEnvGetDLPackManagedTensorAllocator() != nullptr) return;  // a framework's wins
#ifdef __CUDACC__
    int device = 0;
    cudaMemPool_t pool = nullptr;
    if (cudaGetDevice(&device) == cudaSuccess && cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess) {
      std::uint64_t keep = UINT64_MAX;
      (void)cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
#endif
    TVMFFIEnvSetDLPackManagedTensorAllocator(&allocate, /*write_to_global_context=*/1, nullptr);
  });
}

/* Makes the harness's stream the environment stream of a CUDA device for one call. */
class StreamScope {
 public:
  StreamScope(DLDevice device, void* stream) : device_(device) {
    if (device_.device_type != kDLCUDA) return;
    active_ = TVMFFIEnvSetStream(device_.device_type, device_.device_id, stream, &previous_) == 0;
  }
  StreamScope(const StreamScope&) = delete;  // restores once
  StreamScope& operator=(const StreamScope&) = delete;
  ~StreamScope() {
    if (active_) TVMFFIEnvSetStream(device_.device_type, device_.device_id, previous_, nullptr);
  }

 private:
  DLDevice device_;
  TVMFFIStreamHandle previous_ = nullptr;
  bool active_ = false;
};

inline std::string shape_text(const int64_t* shape, int ndim) {
  std::string out = "[";
  for (int i = 0; i < ndim; ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

inline std::string dtype_text(DLDataType t) {
  return "code " + std::to_string(t.code) + " bits " + std::to_string(t.bits) +
         (t.lanes != 1 ? " lanes " + std::to_string(t.lanes) : "");
}

inline std::string head(const Entry& e) { return std::string("kharness: entry '") + e.name + "'"; }

inline bool args_ok(const Entry& e, const kh_arg* args, int nargs) {
  const int n = e.inputs + e.outputs;
  if (nargs != n || (n > 0 && args == nullptr)) {
    fail(KH_ENTRY_BAD_ARGS, "kh_entry_v1: '" + std::string(e.name) + "' takes " + std::to_string(n) +
                                " arguments besides the stream, got " + std::to_string(nargs));
    return false;
  }
  for (int i = 0; i < n; ++i) {
    if (args[i].kind != e.params[i].kind || args[i].index != i ||
        (args[i].kind == KH_ARG_TENSOR && args[i].value.tensor == nullptr)) {
      fail(KH_ENTRY_BAD_ARGS, "kh_entry_v1: argument " + std::to_string(i) + " ('" + e.params[i].name +
                                  "') has the wrong kind, index or a null tensor");
      return false;
    }
  }
  return true;
}

inline tvm::ffi::Any to_any(const kh_arg& a) {
  switch (a.kind) {
    case KH_ARG_TENSOR:
      return borrow(a.value.tensor);
    case KH_ARG_INT64:
      return tvm::ffi::Any(a.value.i64);
    case KH_ARG_FLOAT64:
      return tvm::ffi::Any(a.value.f64);
    default:
      return tvm::ffi::Any(a.value.b);
  }
}

inline DLDevice device_of(const Entry& e, const kh_arg* args) {
  for (int i = 0; i < e.inputs + e.outputs; ++i) {
    if (args[i].kind == KH_ARG_TENSOR) return args[i].value.tensor->device;
  }
  return DLDevice{kDLCPU, 0};
}

/* The returned value as one tensor per output; on a mismatch, a failure code. */
inline int unpack_returned(const Entry& e, const tvm::ffi::Any& result, std::vector<tvm::ffi::Tensor>& out) {
  if (auto one = result.try_cast<tvm::ffi::Tensor>()) {
    out.push_back(*one);
  } else if (auto many = result.try_cast<tvm::ffi::Array<tvm::ffi::Any>>()) {
    for (std::size_t i = 0; i < many->size(); ++i) {
      auto t = (*many)[i].try_cast<tvm::ffi::Tensor>();
      if (!t) {
        return fail(KH_ENTRY_EXCEPTION, head(e) + " returned a " + (*many)[i].GetTypeKey() + " as element " +
                                            std::to_string(i) + ", not a tensor");
      }
      out.push_back(*t);
    }
  } else {
    return fail(KH_ENTRY_EXCEPTION, head(e) + " returned " + result.GetTypeKey() +
                                        "; a value-returning entry returns its output tensors");
  }
  if (static_cast<int>(out.size()) != e.outputs) {
    return fail(KH_ENTRY_EXCEPTION, head(e) + " returned " + std::to_string(out.size()) +
                                        " tensor(s); the definition has " + std::to_string(e.outputs) +
                                        " output(s)");
  }
  return KH_ENTRY_OK;
}

/* Checks one returned tensor against the harness's output and copies it there. */
inline int copy_out(const Entry& e, const Param& p, const tvm::ffi::Tensor& from, DLTensor* to,
                    void* stream) {
  const DLTensor& src = *from.GetDLTensorPtr();
  const std::string what = std::string(" '") + p.name + "' of entry '" + e.name + "'";
  if (src.dtype.code != to->dtype.code || src.dtype.bits != to->dtype.bits ||
      src.dtype.lanes != to->dtype.lanes) {
    return fail(KH_ENTRY_EXCEPTION, std::string(KH_WRONG_OUTPUT_DTYPE) + ":" + what + " is " +
                                        dtype_text(src.dtype) + ", the definition's is " +
                                        dtype_text(to->dtype));
  }
  bool same_shape = src.ndim == to->ndim;
  for (int i = 0; same_shape && i < src.ndim; ++i) same_shape = src.shape[i] == to->shape[i];
  if (!same_shape) {
    return fail(KH_ENTRY_EXCEPTION, std::string(KH_WRONG_OUTPUT_SHAPE) + ":" + what + " has shape " +
                                        shape_text(src.shape, src.ndim) + ", the definition's is " +
                                        shape_text(to->shape, to->ndim));
  }
  if (src.device.device_type != to->device.device_type) {
    return fail(KH_ENTRY_EXCEPTION, head(e) + " returned output '" + p.name + "' on device type " +
                                        std::to_string(src.device.device_type) +
                                        ", not on the inputs' device");
  }
  if (!from.IsContiguous()) {
    return fail(KH_ENTRY_EXCEPTION, head(e) + " returned output '" + p.name + "' that is not contiguous");
  }
  const std::size_t bytes = byte_size(src);
  const void* data = static_cast<const char*>(src.data) + src.byte_offset;
  if (bytes == 0) return KH_ENTRY_OK;
  if (src.device.device_type == kDLCUDA) {
#ifdef __CUDACC__
    const cudaError_t rc =
        cudaMemcpyAsync(to->data, data, bytes, cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream));
    if (rc != cudaSuccess) {
      return fail(KH_ENTRY_EXCEPTION,
                  head(e) + ": copying output '" + p.name + "': " + cudaGetErrorString(rc));
    }
#else
    return fail(KH_ENTRY_EXCEPTION, head(e) + " returned a CUDA tensor from a C++ solution");
#endif
  } else {
    (void)stream;
    std::memcpy(to->data, data, bytes);
  }
  return KH_ENTRY_OK;
}

/* kh_entry_v1 of a tvm-ffi solution. */
inline int invoke(const Entry& e, const tvm::ffi::Function& function, const kh_arg* args, int nargs,
                  void* stream) {
  last_error().clear();
  if (!args_ok(e, args, nargs)) return KH_ENTRY_BAD_ARGS;
  try {
    install_allocator();
    const int passed = e.destination_passing ? e.inputs + e.outputs : e.inputs;
    std::vector<tvm::ffi::Any> values;
    values.reserve(static_cast<std::size_t>(passed));
    for (int i = 0; i < passed; ++i) values.push_back(to_any(args[i]));
    std::vector<tvm::ffi::AnyView> views(values.begin(), values.end());
    const StreamScope scope(device_of(e, args), stream);
    tvm::ffi::Any result;
    function.CallPacked(views.data(), passed, &result);
    if (e.destination_passing) return KH_ENTRY_OK;
    std::vector<tvm::ffi::Tensor> returned;
    if (int rc = unpack_returned(e, result, returned); rc != KH_ENTRY_OK) return rc;
    for (int k = 0; k < e.outputs; ++k) {
      const int i = e.inputs + k;
      if (int rc = copy_out(e, e.params[i], returned[k], args[i].value.tensor, stream); rc != KH_ENTRY_OK)
        return rc;
    }
    return KH_ENTRY_OK;
  } catch (const tvm::ffi::Error& err) {
    return fail(KH_ENTRY_EXCEPTION,
                "'" + std::string(e.name) + "' raised " + err.kind() + ": " + err.message());
  } catch (const std::exception& err) {
    return fail(KH_ENTRY_EXCEPTION, "'" + std::string(e.name) + "' threw: " + err.what());
  } catch (...) {  // reported, not hidden: an exception must not cross the C ABI
    return fail(KH_ENTRY_EXCEPTION,
                "'" + std::string(e.name) + "' threw an exception that is not a std::exception");
  }
}

}  // namespace kh_tvm_ffi

#endif /* KHARNESS_TVM_FFI_BRIDGE_H_ */
