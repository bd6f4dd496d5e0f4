#include "report/head_to_head.h"

#include "report/json_fields.h"

namespace kh::report {
namespace {

using nlohmann::ordered_json;

ordered_json numbers(const std::vector<std::optional<double>>& v) {
  ordered_json out = ordered_json::array();
  for (const auto& x : v) out.push_back(x ? ordered_json(*x) : ordered_json());
  return out;
}

std::vector<std::optional<double>> numbers_at(const ordered_json& j, const char* key) {
  std::vector<std::optional<double>> out;
  for (const ordered_json& x : array_at(j, key)) {
    out.push_back(x.is_number() ? std::optional<double>(x.get<double>()) : std::nullopt);
  }
  return out;
}

}  // namespace

ordered_json HeadToHead::json() const {
  ordered_json as = ordered_json::array();
  for (const ArmHeadToHead& a : arms) {
    as.push_back({{"arm", a.arm},
                  {"best", a.best},
                  {"over_start", a.over_start ? ordered_json(*a.over_start) : ordered_json()},
                  {"passes", numbers(a.passes)}});
  }
  ordered_json ps = ordered_json::array();
  for (const ArmPair& p : pairs) {
    ps.push_back({{"a", p.a},
                  {"b", p.b},
                  {"ratio", p.ratio ? ordered_json(*p.ratio) : ordered_json()},
                  {"passes", numbers(p.passes)},
                  {"noise", p.noise},
                  {"drift", p.drift},
                  {"verdict", p.verdict}});
  }
  return {{"protocol", protocol},  {"passes", passes},       {"runs", runs},
          {"arms", std::move(as)}, {"pairs", std::move(ps)}, {"note", note}};
}

std::optional<HeadToHead> HeadToHead::from_json(const ordered_json& j) {
  if (!j.is_object() || !j.contains("arms")) return std::nullopt;
  HeadToHead h;
  h.protocol = text_at(j, "protocol");
  h.passes = static_cast<int>(number_at(j, "passes").value_or(0));
  h.note = text_at(j, "note");
  for (const ordered_json& r : array_at(j, "runs")) {
    if (r.is_number_integer()) h.runs.push_back(r.get<std::int64_t>());
  }
  for (const ordered_json& a : array_at(j, "arms")) {
    if (a.is_object())
      h.arms.push_back(
          {text_at(a, "arm"), text_at(a, "best"), number_at(a, "over_start"), numbers_at(a, "passes")});
  }
  for (const ordered_json& p : array_at(j, "pairs")) {
    if (!p.is_object()) continue;
    h.pairs.push_back({text_at(p, "a"), text_at(p, "b"), number_at(p, "ratio"), numbers_at(p, "passes"),
                       number_at(p, "noise").value_or(0), number_at(p, "drift").value_or(0),
                       text_at(p, "verdict")});
  }
  return h;
}

}  // namespace kh::report
