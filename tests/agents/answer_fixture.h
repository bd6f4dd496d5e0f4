// A generation request for rmsnorm_h128 with the shipped C++ baseline as parent, and
// helpers to write candidate answers, shared by the workspace and agent tests.
#pragma once

#include <filesystem>
#include <string>

#include "agents/agent.h"
#include "eval/operator_library.h"
#include "trace/json_io.h"

namespace kh::agents::test {

inline ProposalContext rmsnorm_request(const std::filesystem::path& workspace,
                                       std::size_t max_candidates = 2) {
  const OperatorLibrary ops = OperatorLibrary::load(std::filesystem::path(KHARNESS_SOURCE_DIR) / "operators");
  ProposalContext c;
  c.definition = ops.find("rmsnorm_h128")->definition;
  c.parent = ops.baseline("rmsnorm_h128", "cpu");
  c.hypothesis = Hypothesis{"small", "fewer passes over each row", "memory_access",
                            "latency 3x the floor on small batches", ""};
  c.stage = "explore";
  c.max_candidates = max_candidates;
  c.workspace = workspace;
  c.evidence = {{"definition", "rmsnorm_h128"}, {"label", "memory"}};
  c.evidence_markdown = "# Profile of rmsnorm_h128\n";
  return c;
}

// A manifest for a one-file C++ candidate whose entry is kernel.cpp::rmsnorm_fast.
inline std::string manifest(const std::string& family = "memory_access",
                            const std::string& entry = "kernel.cpp::rmsnorm_fast",
                            const std::string& sources = R"(["kernel.cpp"])",
                            const std::string& language = "cpp") {
  return R"({"family": ")" + family + R"(", "hypothesis": "one pass per row", "language": ")" + language +
         R"(", "entry_point": ")" + entry + R"(", "sources": )" + sources + "}";
}

inline const char* kKernel =
    "#include <kharness/kernel.h>\n"
    "void rmsnorm_fast(const DLTensor* x, const DLTensor* w, DLTensor* y, kh_stream_t) {}\n";

}  // namespace kh::agents::test
