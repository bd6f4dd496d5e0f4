#include "device/cuda_resident_tables.h"

#include "base/cuda_call.h"
#include "error/error.h"

namespace kh {

CudaResidentTables::~CudaResidentTables() {
  for (auto& [name, table] : tables_) KH_CUDA_CALL_NOEXCEPT(cudaFree(table.data));
}

const void* CudaResidentTables::get(std::string_view name, const void* bytes, std::size_t size,
                                    cudaStream_t stream) {
  auto it = tables_.find(name);
  if (it != tables_.end()) {
    if (it->second.size != size)
      throw Error("resident table '" + std::string(name) + "' requested with two different sizes");
    return it->second.data;
  }
  Table t;
  t.size = size;
  KH_CUDA_CALL(cudaMalloc(&t.data, size == 0 ? 1 : size));
  tables_.emplace(std::string(name), t);  // owned from here on, even if the copy fails
  KH_CUDA_CALL(cudaMemcpyAsync(t.data, bytes, size, cudaMemcpyHostToDevice, stream));
  KH_CUDA_CALL(cudaStreamSynchronize(stream));
  return t.data;
}

}  // namespace kh
