// The text of kernel_driver.py, built into the binary (CMake writes the definition from
// the file at configure time), so a worker needs no kharness files beside it.
#pragma once

namespace kh::python {

extern const char* const kKernelDriverSource;

}  // namespace kh::python
