#include "rmsnorm_common.h"
void rmsnorm(const DLTensor* x, const DLTensor*, DLTensor*, kh_stream_t) {
  volatile int* p = nullptr;
  *p = static_cast<int>(x->shape[0]);
}
