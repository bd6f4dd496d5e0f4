// C++ reference for copy_f32.
#include <kharness/kernel.h>

#include <cstring>

void copy_reference(const DLTensor* x, DLTensor* y, kh_stream_t /*stream*/) {
  std::memcpy(y->data, x->data, static_cast<std::size_t>(kh_numel(x)) * sizeof(float));
}
