// DLPack capsules over the worker's tensors, for torch.from_dlpack: no copy is made.
//
// The capsule owns only a small DLManagedTensor (a copy of the view and its shape); the
// memory stays the worker's. A consumer (torch) renames a consumed capsule to
// "used_dltensor" and calls the deleter when its tensor dies; an unconsumed capsule is
// cleaned up by its own destructor.
#pragma once

#include <dlpack/dlpack.h>

#include "eval/python/python_api.h"
#include "tensor/dtype.h"

namespace kh::python {

// The DLPack type a consumer is given for `dtype`: its own code where every torch
// understands it, else bytes of the same width (fp8, fp4 and bool), which the driver
// views as the real type. fp4 travels as its packed bytes.
[[nodiscard]] DLDataType carrier_type(DType dtype) noexcept;

// A new reference to a capsule named "dltensor" over `view`, typed as carrier_type. Call
// with the GIL held; nullptr with a Python error set when the capsule cannot be made.
[[nodiscard]] PyObject* make_capsule(const Api& api, const DLTensor& view, DType dtype);

}  // namespace kh::python
