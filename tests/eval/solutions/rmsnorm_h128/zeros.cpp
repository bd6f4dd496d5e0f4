#include "rmsnorm_common.h"
void rmsnorm(const DLTensor* x, const DLTensor*, DLTensor* y, kh_stream_t) {
  std::memset(y->data, 0, static_cast<size_t>(x->shape[0] * x->shape[1]) * 2);
}
