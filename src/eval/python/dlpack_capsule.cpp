#include "eval/python/dlpack_capsule.h"

#include <atomic>
#include <cstdint>
#include <vector>

#include "tensor/dlpack_codes.h"

namespace kh::python {

namespace {

constexpr const char* kName = "dltensor";

// Owned by the capsule's DLManagedTensor: the view with its own copy of the shape, so
// a tensor a solution keeps past the call does not point into freed harness memory for
// its metadata.
struct ManagedView {
  DLManagedTensor managed{};
  std::vector<std::int64_t> shape;
};

void delete_view(DLManagedTensor* self) { delete static_cast<ManagedView*>(self->manager_ctx); }

// The interpreter's API, for the destructor (capsule destructors get no context).
std::atomic<const Api*> g_api{nullptr};

void destroy_capsule(PyObject* capsule) {
  const Api* api = g_api.load();
  // Consumed capsules were renamed "used_dltensor"; their tensor owns the view now.
  if (api == nullptr || api->PyCapsule_IsValid(capsule, kName) == 0) return;
  auto* managed = static_cast<DLManagedTensor*>(api->PyCapsule_GetPointer(capsule, kName));
  if (managed != nullptr && managed->deleter != nullptr) managed->deleter(managed);
}

}  // namespace

DLDataType carrier_type(DType dtype) noexcept {
  switch (dtype) {
    case DType::float8_e4m3fn:
    case DType::float8_e5m2:
    case DType::float4_e2m1:
    case DType::boolean:
      return DLDataType{kDLCodeUInt, 8, 1};
    default:
      return to_dlpack(dtype);
  }
}

PyObject* make_capsule(const Api& api, const DLTensor& view, DType dtype) {
  g_api.store(&api);
  auto* owned = new ManagedView;
  owned->shape.assign(view.shape, view.shape + view.ndim);
  if (dtype == DType::float4_e2m1 && !owned->shape.empty()) {
    std::int64_t& last = owned->shape.back();  // two values a byte, low nibble first
    last = (last + 1) / 2;
  }
  owned->managed.dl_tensor = view;
  owned->managed.dl_tensor.shape = owned->shape.data();
  owned->managed.dl_tensor.strides = nullptr;
  owned->managed.dl_tensor.dtype = carrier_type(dtype);
  owned->managed.manager_ctx = owned;
  owned->managed.deleter = &delete_view;
  PyObject* capsule = api.PyCapsule_New(&owned->managed, kName, &destroy_capsule);
  if (capsule == nullptr) delete owned;
  return capsule;
}

}  // namespace kh::python
