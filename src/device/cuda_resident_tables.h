// Read-only tables the input generators' kernels look up (the ziggurat's, fp8 code
// tables), copied to the device once per name and freed with the backend.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

namespace kh {

class CudaResidentTables {
 public:
  CudaResidentTables() = default;
  CudaResidentTables(const CudaResidentTables&) = delete;  // owns device memory: one owner frees it
  CudaResidentTables& operator=(const CudaResidentTables&) = delete;
  ~CudaResidentTables();

  // The device copy of `bytes` named `name`, uploaded on `stream` the first time. A
  // second call with the same name and a different size is a harness bug: kh::Error.
  [[nodiscard]] const void* get(std::string_view name, const void* bytes, std::size_t size,
                                cudaStream_t stream);

 private:
  struct Table {
    void* data = nullptr;
    std::size_t size = 0;
  };
  std::map<std::string, Table, std::less<>> tables_;
};

}  // namespace kh
