// make_backend / compiled_backends: backends chosen by name. Adding a backend is one
// include and one branch here.
#include <charconv>

#include "device/backend.h"
#include "device/cpu_backend.h"
#include "error/error.h"
#ifdef KHARNESS_WITH_CUDA
#include "device/cuda_backend.h"
#endif

namespace kh {

namespace {

// "cuda" -> 0, "cuda:3" -> 3.
int cuda_ordinal(std::string_view name) {
  if (name == "cuda") return 0;
  const std::string_view digits = name.substr(5);
  int ordinal = -1;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
  if (ec != std::errc{} || end != digits.data() + digits.size() || ordinal < 0) {
    throw Error("backend '" + std::string(name) + "': expected cuda or cuda:<device ordinal>");
  }
  return ordinal;
}

}  // namespace

std::vector<std::string> compiled_backends() {
#ifdef KHARNESS_WITH_CUDA
  return {"cpu", "cuda"};
#else
  return {"cpu"};
#endif
}

std::unique_ptr<Backend> make_backend(std::string_view name) {
  if (name == "cpu") return std::make_unique<CpuBackend>();
  if (name == "cuda" || name.starts_with("cuda:")) {
    const int ordinal = cuda_ordinal(name);
#ifdef KHARNESS_WITH_CUDA
    return std::make_unique<CudaBackend>(ordinal);
#else
    throw Error("backend 'cuda' (device " + std::to_string(ordinal) +
                ") is not compiled into this binary: it was built without the CUDA toolkit");
#endif
  }
  std::string known;
  for (const std::string& backend : compiled_backends()) known += (known.empty() ? "" : ", ") + backend;
  throw Error("unknown backend '" + std::string(name) + "' (compiled: " + known + ")");
}

}  // namespace kh
