// Asks for 20 GiB (never touched, so it costs nothing where it is granted). Under the
// worker's address-space limit the allocation fails; if the limit were missing, this
// would compute the right answer and pass, and the test expecting a failure would fail.
#include <cstdlib>
#include <new>

#include "rmsnorm_common.h"
void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {
  void* p = std::malloc(std::size_t{20} << 30);
  if (p == nullptr) throw std::bad_alloc();
  std::free(p);
  rmsnorm_rows(x, w, y, 0, x->shape[0]);
}
