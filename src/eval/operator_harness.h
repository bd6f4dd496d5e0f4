// The harness code of the operators kharness ships: each operators/<definition>/harness/
// folder holds the operator's input generator and, where it needs one, its output
// checker. They are compiled into kharness (operators/CMakeLists.txt builds them as one
// library) and registered by name; the registration function is generated from the
// folders, so adding an operator's harness touches no file of src/.
#pragma once

namespace kh {

// Calls every folder's register_harness_<definition>(). Idempotent and thread-safe;
// the generator and checker lookups call it before their first use.
void register_operator_harnesses();

}  // namespace kh
