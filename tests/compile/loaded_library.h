// dlopen()s a built candidate for the tests and looks up the entry ABI.
#pragma once

#include <dlfcn.h>
#include <kharness/entry.h>
#include <kharness/kernel.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace kh::test {

class LoadedLibrary {
 public:
  explicit LoadedLibrary(const std::filesystem::path& path)
      : handle_(::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) throw std::runtime_error(std::string("dlopen: ") + ::dlerror());
  }
  LoadedLibrary(const LoadedLibrary&) = delete;  // dlclose exactly once
  LoadedLibrary& operator=(const LoadedLibrary&) = delete;
  ~LoadedLibrary() { ::dlclose(handle_); }

  template <class Fn>
  [[nodiscard]] Fn symbol(const char* name) const {
    void* p = ::dlsym(handle_, name);
    if (p == nullptr) throw std::runtime_error(std::string("dlsym: ") + name + " not exported");
    return reinterpret_cast<Fn>(p);
  }

  [[nodiscard]] kh_entry_v1_fn entry() const { return symbol<kh_entry_v1_fn>(KH_SYMBOL_ENTRY_V1); }
  [[nodiscard]] std::string last_error() const { return symbol<kh_last_error_fn>(KH_SYMBOL_LAST_ERROR)(); }
  [[nodiscard]] std::string signature() const { return symbol<kh_signature_fn>(KH_SYMBOL_SIGNATURE)(); }
  [[nodiscard]] int abi_version() const { return symbol<kh_abi_version_fn>(KH_SYMBOL_ABI_VERSION)(); }

 private:
  void* handle_;
};

}  // namespace kh::test
