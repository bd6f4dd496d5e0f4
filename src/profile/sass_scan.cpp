#include "profile/sass_scan.h"

#include <regex>
#include <sstream>

namespace kh::profile {

namespace {

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

void count(SassSummary& f, const std::string& op) {
  ++f.instructions;
  const std::string base = op.substr(0, op.find('.'));
  ++f.opcodes[base];
  if (base == "HGMMA") ++f.hgmma;
  if (base == "QGMMA") ++f.qgmma;
  if (base == "HMMA") ++f.hmma;
  if (base == "IGMMA" || base == "IMMA" || base == "BGMMA" || base == "DMMA") ++f.other_mma;
  f.tensor = f.hgmma + f.qgmma + f.hmma + f.other_mma;
  if (base == "FFMA") ++f.ffma;
  if (base == "LDG") {
    ++f.global_loads;
    if (op.find(".128") != std::string::npos || op.find(".256") != std::string::npos) ++f.global_loads_128;
  }
  if ((base == "LDGSTS" && op.find(".128") != std::string::npos) || base == "UTMALDG" || base == "UBLKCP")
    ++f.async_copies_wide;
  if (base == "STG") {
    ++f.global_stores;
    if (op.find(".128") != std::string::npos || op.find(".256") != std::string::npos) ++f.global_stores_128;
  }
  if (base == "LDL") ++f.local_loads;
  if (base == "STL") ++f.local_stores;
  if (starts_with(base, "BAR")) ++f.barriers;
}

}  // namespace

std::vector<SassSummary> parse_sass(std::string_view output) {
  static const std::regex code_for(R"(code for (sm_\w+))");
  static const std::regex function(R"(Function : (\S+))");
  // "/*00a0*/   @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;"
  static const std::regex instruction(R"(^\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*))");
  std::vector<SassSummary> out;
  std::string arch;
  std::istringstream in{std::string(output)};
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, code_for)) {
      arch = m[1].str();
    } else if (std::regex_search(line, m, function)) {
      SassSummary f;
      f.function = m[1].str();
      f.arch = arch;
      out.push_back(std::move(f));
    } else if (!out.empty() && std::regex_search(line, m, instruction)) {
      count(out.back(), m[1].str());
    }
  }
  return out;
}

}  // namespace kh::profile
