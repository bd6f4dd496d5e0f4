#include "agents/knobs.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>

#include "error/error.h"

namespace kh::agents {

namespace {

const std::regex& declaration() {
  static const std::regex re(R"(//\s*kh:param\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\s+\{([^}]*)\}\s*(.*)$)");
  return re;
}

std::vector<std::string> split_values(const std::string& list, const std::string& where) {
  std::vector<std::string> values;
  std::stringstream in(list);
  std::string v;
  static const std::regex token(R"(^-?[A-Za-z0-9_.]+$)");
  while (std::getline(in, v, ',')) {
    v.erase(0, v.find_first_not_of(" \t"));
    v.erase(v.find_last_not_of(" \t") + 1);
    if (!std::regex_match(v, token)) {
      throw Error(Location{where, 0, "kh:param"}, fmt::format("value '{}' is not a number or identifier", v));
    }
    if (std::find(values.begin(), values.end(), v) != values.end()) {
      throw Error(Location{where, 0, "kh:param"}, fmt::format("value '{}' is listed twice", v));
    }
    values.push_back(v);
  }
  if (values.empty()) throw Error(Location{where, 0, "kh:param"}, "no values between the braces");
  return values;
}

// The value of `#define NAME VALUE` inside the file, if any: the knob's default.
std::string define_in(const std::string& text, const std::string& name) {
  const std::regex re("#\\s*define\\s+" + name + "\\s+([^\\s/]+)");
  std::smatch m;
  return std::regex_search(text, m, re) ? m[1].str() : std::string();
}

void add_knob(std::vector<Knob>& knobs, Knob k) {
  for (const Knob& other : knobs) {
    if (other.name == k.name) {
      throw Error(Location{k.where, 0, "kh:param"},
                  fmt::format("knob '{}' is declared twice (also at {})", k.name, other.where));
    }
  }
  if (k.default_value.empty()) k.default_value = k.values.front();
  if (std::find(k.values.begin(), k.values.end(), k.default_value) == k.values.end()) {
    throw Error(
        Location{k.where, 0, "kh:param"},
        fmt::format("knob '{}' defaults to {}, which is not among its values", k.name, k.default_value));
  }
  knobs.push_back(std::move(k));
}

void knobs_from_sources(const Solution& s, std::vector<Knob>& knobs) {
  for (const SourceFile& f : s.sources) {
    std::stringstream in(f.content);
    std::string line;
    std::size_t number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.find("kh:param") == std::string::npos) continue;
      const std::string where = fmt::format("{}:{}", f.path, number);
      std::smatch m;
      if (!std::regex_search(line, m, declaration())) {
        throw Error(Location{where, 0, "kh:param"}, "expected `// kh:param NAME in {v1,v2,...}`");
      }
      add_knob(knobs, Knob{m[1].str(), split_values(m[2].str(), where), define_in(f.content, m[1].str()),
                           m[3].str(), where});
    }
  }
}

void knobs_from_json(const Solution& s, std::vector<Knob>& knobs) {
  if (!s.raw.is_object() || !s.raw.contains("knobs")) return;
  const auto& list = s.raw["knobs"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = fmt::format("{}: knobs[{}]", s.name, i);
    if (!list[i].is_object() || !list[i].contains("name") || !list[i].contains("values")) {
      throw Error(Location{where, 0, "knobs"}, "each knob needs a name and values");
    }
    std::vector<std::string> values;
    for (const auto& v : list[i]["values"]) values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    std::string text = fmt::format("{}", fmt::join(values, ","));
    Knob k{list[i]["name"].get<std::string>(), split_values(text, where), "", "", where};
    for (const SourceFile& f : s.sources) {
      if (k.default_value.empty()) k.default_value = define_in(f.content, k.name);
    }
    add_knob(knobs, std::move(k));
  }
}

}  // namespace

std::vector<Knob> parse_knobs(const Solution& s) {
  std::vector<Knob> knobs;
  knobs_from_sources(s, knobs);
  knobs_from_json(s, knobs);
  return knobs;
}

KnobSetting default_setting(const std::vector<Knob>& knobs) {
  KnobSetting out;
  for (const Knob& k : knobs) out.emplace_back(k.name, k.default_value);
  return out;
}

Solution with_knobs(const Solution& s, const KnobSetting& setting) {
  Solution v = s;
  const std::string entry = s.spec.entry_file();
  std::string defines;
  std::vector<std::string> parts;
  for (const auto& [name, value] : setting) {
    defines += fmt::format("#define {} {}\n", name, value);
    parts.push_back(fmt::format("{}={}", name, value));
  }
  for (SourceFile& f : v.sources) {
    if (f.path == entry) f.content = defines + f.content;
  }
  v.name = fmt::format("{}+{}", s.name, fmt::join(parts, ","));
  return v;
}

Solution without_knobs(const Solution& s) {
  std::vector<std::string> names;
  for (const Knob& k : parse_knobs(s)) names.push_back(k.name);
  Solution base = s;
  const std::string entry = s.spec.entry_file();
  for (SourceFile& f : base.sources) {
    if (f.path != entry) continue;
    static const std::regex setting_line(R"(^#define ([A-Za-z_][A-Za-z0-9_]*) [^\n]*\n)");
    std::smatch m;
    while (std::regex_search(f.content, m, setting_line) &&
           std::find(names.begin(), names.end(), m[1].str()) != names.end()) {
      f.content.erase(0, static_cast<std::size_t>(m.length(0)));
    }
  }
  const std::size_t plus = base.name.find('+');
  if (plus != std::string::npos) base.name.erase(plus);
  return base;
}

std::vector<KnobSetting> knob_grid(const std::vector<Knob>& knobs, std::size_t limit) {
  std::vector<KnobSetting> out;
  const KnobSetting defaults = default_setting(knobs);
  if (limit == 0) return out;
  out.push_back(defaults);
  std::vector<std::size_t> index(knobs.size(), 0);
  while (out.size() < limit) {
    KnobSetting s;
    for (std::size_t i = 0; i < knobs.size(); ++i) s.emplace_back(knobs[i].name, knobs[i].values[index[i]]);
    if (s != defaults) out.push_back(std::move(s));
    std::size_t i = knobs.size();
    while (i > 0 && ++index[i - 1] == knobs[i - 1].values.size()) index[--i] = 0;
    if (i == 0) break;  // every combination visited
  }
  return out;
}

std::vector<KnobSetting> knob_neighbours(const std::vector<Knob>& knobs, const KnobSetting& from) {
  std::vector<KnobSetting> out;
  for (std::size_t i = 0; i < knobs.size() && i < from.size(); ++i) {
    const auto& values = knobs[i].values;
    const auto at = std::find(values.begin(), values.end(), from[i].second);
    if (at == values.end()) continue;
    for (int step : {-1, 1}) {
      const auto pos = (at - values.begin()) + step;
      if (pos < 0 || pos >= static_cast<std::ptrdiff_t>(values.size())) continue;
      KnobSetting n = from;
      n[i].second = values[static_cast<std::size_t>(pos)];
      out.push_back(std::move(n));
    }
  }
  return out;
}

}  // namespace kh::agents
