// The rmsnorm examples of docs/kernel-abi.md, read from the document so that the
// documentation cannot drift from what actually builds.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "compile/build_request.h"

namespace kh::test {

// The first fenced block with `fence` ("```cuda") after the heading `heading`.
inline std::string doc_code_block(const std::string& heading, const std::string& fence) {
  std::ifstream in(std::string(KHARNESS_SOURCE_DIR) + "/docs/kernel-abi.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::size_t at = doc.find(heading);
  if (at == std::string::npos) return {};
  const std::size_t open = doc.find(fence + "\n", at);
  const std::size_t body = open + fence.size() + 1;
  const std::size_t close = doc.find("\n```", body);
  if (open == std::string::npos || close == std::string::npos) return {};
  return doc.substr(body, close - body + 1);
}

inline KernelSignature doc_rmsnorm_signature() {
  using R = KernelParam::Role;
  return {"rmsnorm",
          {{"hidden_states", R::input, DType::bfloat16},
           {"weight", R::input, DType::bfloat16},
           {"output", R::output, DType::bfloat16}}};
}

}  // namespace kh::test
