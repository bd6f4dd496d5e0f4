#include "control/steering.h"

#include <fmt/format.h>

#include <algorithm>

#include "archive/controller_log.h"
#include "archive/utc_time.h"
#include "error/error.h"

namespace kh::control {
namespace {

using json = nlohmann::ordered_json;

constexpr std::string_view kPrefix = "directive/";

std::string key_of(std::int64_t id) { return fmt::format("{}{:06d}", kPrefix, id); }

Directive from_json(std::string scope, std::int64_t id, const json& j) {
  Directive d;
  d.scope = std::move(scope);
  d.id = id;
  d.text = j.value("text", "");
  d.regime = j.value("regime", "");
  d.family = j.value("family", "");
  d.created_at = j.value("created_at", "");
  if (j.contains("consumed_round") && j.at("consumed_round").is_number_integer())
    d.consumed_round = j.at("consumed_round").get<std::int64_t>();
  d.consumed_by = j.value("consumed_by", "");
  return d;
}

// The stored value: the directive without its scope and id, which the manifest row holds.
json stored(const Directive& d) {
  json j = d.json();
  j.erase("scope");
  j.erase("id");
  return j;
}

std::vector<Directive> scope_directives(archive::Archive& archive, const std::string& scope) {
  std::vector<Directive> out;
  for (const auto& [key, value] : archive::load_manifest(archive, scope)) {
    if (!key.starts_with(kPrefix)) continue;
    const std::string digits = key.substr(kPrefix.size());
    if (digits.empty() ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      continue;
    out.push_back(from_json(scope, std::stoll(digits), value));
  }
  std::sort(out.begin(), out.end(), [](const Directive& a, const Directive& b) { return a.id < b.id; });
  return out;
}

// Marks `d` consumed unless another loop got there first; true when this loop has it.
bool consume(archive::Archive& archive, Directive& d, std::string_view loop_id, std::int64_t round) {
  const json before = stored(d);
  d.consumed_round = round;
  d.consumed_by = std::string(loop_id);
  return archive::replace_manifest_if(archive, d.scope, key_of(d.id), before, stored(d));
}

}  // namespace

nlohmann::ordered_json Directive::json() const {
  return {{"scope", scope},
          {"id", id},
          {"text", text},
          {"regime", regime},
          {"family", family},
          {"created_at", created_at},
          {"consumed_round",
           consumed_round ? nlohmann::ordered_json(*consumed_round) : nlohmann::ordered_json(nullptr)},
          {"consumed_by", consumed_by}};
}

std::string definition_scope(std::string_view definition) { return "definition:" + std::string(definition); }

Directive add_directive(archive::Archive& archive, const DirectiveRequest& request) {
  if (request.scope.empty()) throw Error(Location{"", 0, "loop"}, "a directive needs a loop or a definition");
  if (request.text.find_first_not_of(" \t\n") == std::string::npos)
    throw Error(Location{"", 0, "text"}, "a directive needs text");
  Directive d;
  d.scope = request.scope;
  d.text = request.text;
  d.regime = request.regime;
  d.family = request.family;
  d.created_at = archive::utc_now();
  const std::vector<Directive> existing = scope_directives(archive, d.scope);
  d.id = existing.empty() ? 1 : existing.back().id + 1;
  // Two people steering at once: the loser of the key takes the next number.
  while (!archive::insert_manifest(archive, d.scope, key_of(d.id), stored(d))) ++d.id;
  return d;
}

std::vector<Directive> list_directives(archive::Archive& archive, std::string_view scope) {
  if (!scope.empty()) return scope_directives(archive, std::string(scope));
  std::vector<Directive> out;
  for (const std::string& s : archive::manifest_loops(archive)) {
    std::vector<Directive> some = scope_directives(archive, s);
    out.insert(out.end(), some.begin(), some.end());
  }
  return out;
}

std::vector<Directive> take_directives(archive::Archive& archive, std::string_view loop_id,
                                       std::string_view definition, std::int64_t round) {
  std::vector<Directive> all = scope_directives(archive, std::string(loop_id));
  if (!definition.empty()) {
    std::vector<Directive> shared = scope_directives(archive, definition_scope(definition));
    all.insert(all.end(), shared.begin(), shared.end());
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Directive& a, const Directive& b) { return a.created_at < b.created_at; });
  std::vector<Directive> out;
  for (Directive& d : all) {
    const bool retaken = !d.pending() && d.consumed_round == round && d.consumed_by == loop_id;
    if (retaken || (d.pending() && consume(archive, d, loop_id, round))) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace kh::control
