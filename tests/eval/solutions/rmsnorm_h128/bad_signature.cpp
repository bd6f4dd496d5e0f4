// The weight is taken by value-less int: the definition wants const DLTensor*.
#include "rmsnorm_common.h"
void rmsnorm(const DLTensor* x, int weight, DLTensor* y, kh_stream_t) {
  (void)x;
  (void)weight;
  (void)y;
}
