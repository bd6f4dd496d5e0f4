#include "eval/check/output_checker.h"

#include <fmt/format.h>

#include "error/error.h"
#include "eval/check/default_checker.h"
#include "eval/check/topk_indexer_checker.h"

namespace kh {

std::unique_ptr<OutputChecker> make_output_checker(std::string_view name) {
  if (name == "default") return std::make_unique<DefaultChecker>();
  if (name == "topk_indexer") return std::make_unique<TopkIndexerChecker>();
  throw Error(Location{"", 0, "checker"}, fmt::format("unknown output checker '{}'; known: default, topk_indexer", name));
}

}  // namespace kh
