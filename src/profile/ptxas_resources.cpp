#include "profile/ptxas_resources.h"

#include <regex>
#include <sstream>

namespace kh::profile {

namespace {

long number_before(const std::string& line, const std::string& unit) {
  const std::regex re("(\\d+) " + unit);
  std::smatch m;
  return std::regex_search(line, m, re) ? std::stol(m[1].str()) : 0;
}

}  // namespace

std::vector<KernelResources> parse_ptxas_resources(std::string_view log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex properties(R"(Function properties for (\S+))");
  std::vector<KernelResources> out;
  std::istringstream in{std::string(log)};
  std::string line;
  KernelResources* current = nullptr;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      out.push_back(KernelResources{m[1].str(), m[2].str()});
      current = &out.back();
    } else if (std::regex_search(line, m, properties)) {
      // The properties block may name a device function too; only entries matter.
      current = nullptr;
      for (auto& k : out) {
        if (k.name == m[1].str()) current = &k;
      }
    } else if (current != nullptr && line.find("bytes stack frame") != std::string::npos) {
      current->stack_bytes = number_before(line, "bytes stack frame");
      current->spill_store_bytes = number_before(line, "bytes spill stores");
      current->spill_load_bytes = number_before(line, "bytes spill loads");
    } else if (current != nullptr && line.find("Used ") != std::string::npos &&
               line.find("registers") != std::string::npos) {
      current->registers = static_cast<int>(number_before(line, "registers"));
      current->barriers = static_cast<int>(number_before(line, "barriers"));
      current->shared_bytes = number_before(line, "bytes smem");
    }
  }
  return out;
}

}  // namespace kh::profile
