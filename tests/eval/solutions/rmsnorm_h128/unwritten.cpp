// Writes nothing: whatever was in the output buffer stays there.
#include "rmsnorm_common.h"
void rmsnorm(const DLTensor*, const DLTensor*, DLTensor*, kh_stream_t) {}
