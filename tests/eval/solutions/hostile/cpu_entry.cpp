// A hostile C++ candidate: the attack named by the test, then the answer it earned.
// The @...@ fields are filled in before the build: not C++ yet.
// clang-format off
#include "attacks.h"
#include "rmsnorm_common.h"

void rmsnorm(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {
  if (hostile::once<hostile::@ATTACK@>()) {
    rmsnorm_rows(x, w, y, 0, x->shape[0]);
  } else {
    std::memset(y->data, 0, static_cast<std::size_t>(kh_numel(y)) * 2);
  }
}
