// The structured-input generators kharness ships, one per operator that needs valid
// data (page tables, sequence lengths, sparse indices, routing logits, block scales).
#pragma once

namespace kh {

// Registers every shipped generator with register_structured_inputs(). Idempotent and
// thread-safe; make_inputs() calls it before its first lookup.
void register_builtin_inputs();

}  // namespace kh
