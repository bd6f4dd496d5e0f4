// The worker's answer to a load it refuses, rethrown by the orchestrator's client: one
// type on both sides of the channel.
#pragma once

#include "error/error.h"

namespace kh {

// A solution the worker cannot make callable for a reason of its own (a Python syntax or
// import error, no such entry function): COMPILE_ERROR, found before anything runs.
class KernelRejected : public Error {
 public:
  using Error::Error;
};

}  // namespace kh
