#include "eval/worker_side/kernel_library.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <kharness/kernel.h>

#include <memory>
#include <utility>

#include "error/error.h"

namespace kh {

namespace {

void* required_symbol(void* handle, const char* name, const std::string& path) {
  dlerror();
  void* symbol = dlsym(handle, name);
  if (symbol == nullptr) {
    throw Error(Location{path, 0, name},
                "library does not export the entry shim's symbol (not built by kharness?)");
  }
  return symbol;
}

}  // namespace

KernelLibrary KernelLibrary::open(const std::string& path, const std::string& expected_signature) {
  KernelLibrary lib;
  // RTLD_LOCAL: two candidates in one worker must not resolve each other's symbols.
  lib.handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib.handle_ == nullptr) {
    const char* why = dlerror();
    throw Error(Location{path, 0, ""}, fmt::format("cannot load library: {}", why ? why : "unknown"));
  }
  auto version =
      reinterpret_cast<kh_abi_version_fn>(required_symbol(lib.handle_, KH_SYMBOL_ABI_VERSION, path));
  auto signature = reinterpret_cast<kh_signature_fn>(required_symbol(lib.handle_, KH_SYMBOL_SIGNATURE, path));
  lib.entry_ = reinterpret_cast<kh_entry_v1_fn>(required_symbol(lib.handle_, KH_SYMBOL_ENTRY_V1, path));
  lib.last_error_ =
      reinterpret_cast<kh_last_error_fn>(required_symbol(lib.handle_, KH_SYMBOL_LAST_ERROR, path));
  if (version() != KH_ABI_VERSION) {
    throw Error(Location{path, 0, "kh_abi_version"},
                fmt::format("library has ABI version {}, this kharness needs {}", version(), KH_ABI_VERSION));
  }
  const std::string stamped = signature() ? signature() : "";
  if (stamped != expected_signature) {
    throw Error(Location{path, 0, "kh_signature"},
                fmt::format("library was built for '{}', expected '{}'", stamped, expected_signature));
  }
  return lib;
}

KernelLibrary::KernelLibrary(KernelLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      entry_(std::exchange(other.entry_, nullptr)),
      last_error_(std::exchange(other.last_error_, nullptr)) {}

KernelLibrary& KernelLibrary::operator=(KernelLibrary&& other) noexcept {
  if (this != &other) {
    handle_ = std::exchange(other.handle_, nullptr);
    entry_ = std::exchange(other.entry_, nullptr);
    last_error_ = std::exchange(other.last_error_, nullptr);
  }
  return *this;
}

KernelLibrary::~KernelLibrary() {
  // Not dlclose()d: a candidate may leave threads or CUDA callbacks pointing into its
  // code, and unmapping it under them would crash the worker in a later, unrelated
  // request. Workers are short-lived processes, so the mapping dies with them.
  handle_ = nullptr;
}

namespace {

class NativeCall final : public PreparedCall {
 public:
  NativeCall(kh_entry_v1_fn entry, kh_last_error_fn last_error, std::vector<kh_arg> args, void* stream)
      : entry_(entry), last_error_(last_error), args_(std::move(args)), stream_(stream) {}

  CallResult run() override {
    const int rc = entry_(args_.data(), static_cast<int>(args_.size()), stream_);
    if (rc == KH_ENTRY_OK) return {};
    const char* message = last_error_();
    if (message != nullptr && *message != '\0') return CallResult::failed(message);
    return CallResult::failed(fmt::format("entry returned {}", rc));
  }

 private:
  kh_entry_v1_fn entry_;
  kh_last_error_fn last_error_;
  std::vector<kh_arg> args_;
  void* stream_;
};

}  // namespace

std::unique_ptr<PreparedCall> KernelLibrary::prepare(const std::vector<kh_arg>& args, void* stream) const {
  return std::make_unique<NativeCall>(entry_, last_error_, args, stream);
}

}  // namespace kh
