#include <stdexcept>

#include "rmsnorm_common.h"
void rmsnorm(const DLTensor*, const DLTensor*, DLTensor*, kh_stream_t) {
  throw std::runtime_error("tile size does not divide 128");
}
