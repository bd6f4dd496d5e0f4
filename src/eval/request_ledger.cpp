#include "eval/request_ledger.h"

namespace kh {

namespace {

using json = nlohmann::ordered_json;

void add_numbers(json& into, const json& from, double sign) {
  for (const auto& [k, v] : from.items()) {
    if (v.is_number()) {
      into[k] = into.value(k, 0.0) + sign * v.get<double>();
    } else if (v.is_object()) {
      if (!into.contains(k) || !into[k].is_object()) into[k] = json::object();
      add_numbers(into[k], v, sign);
    }
  }
}

}  // namespace

void RequestLedger::add(std::string_view kind, double wall_ms, std::size_t reply_bytes,
                        const json& reply_header) {
  json one = {
      {"count", 1}, {"wall_ms", wall_ms}, {"reply_bytes", reply_bytes}, {"worker_ms", json::object()}};
  // Per-phase accounts the worker gives: time replies split setup from the loop.
  for (const char* group : {"phases_ms", "setup_ms"}) {
    if (!reply_header.is_object()) break;
    const auto it = reply_header.find(group);
    if (it == reply_header.end() || !it->is_object()) continue;
    for (const auto& [k, v] : it->items())
      if (v.is_number()) one["worker_ms"][k] = one["worker_ms"].value(k, 0.0) + v.get<double>();
  }
  if (reply_header.is_object() && reply_header.contains("handled_ms") &&
      reply_header["handled_ms"].is_number())
    one["worker_ms"]["handled"] = reply_header["handled_ms"];
  const std::string key(kind);
  if (!totals_.contains(key)) totals_[key] = json::object();
  add_numbers(totals_[key], one, 1.0);
}

json RequestLedger::since(const json& before) const {
  json out = json::object();
  for (const auto& [kind, now] : totals_.items()) {
    json diff = json::object();
    add_numbers(diff, now, 1.0);
    if (before.contains(kind)) add_numbers(diff, before.at(kind), -1.0);
    if (diff.value("count", 0.0) > 0) out[kind] = std::move(diff);
  }
  return out;
}

}  // namespace kh
