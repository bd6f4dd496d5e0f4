#include "rmsnorm_common.h"
void rmsnorm(const DLTensor*, const DLTensor*, DLTensor*, kh_stream_t) {
  for (volatile bool forever = true; forever;) {
  }
}
