#include "archive/upstream_trace.h"

#include "trace/json_text.h"
#include "trace/trace.h"

namespace kh::archive {

namespace {

constexpr std::string_view kRewardHack = "REWARD_HACK";

// null numbers under `block` become `replacement`: "NaN" for an error (upstream's form
// for NaN), 0 for a latency or speedup (upstream's "not measured"; it refuses NaN there).
bool fix_null_numbers(ordered_json& evaluation, const char* block, std::initializer_list<const char*> keys,
                      const ordered_json& replacement) {
  const auto it = evaluation.find(block);
  if (it == evaluation.end() || !it->is_object()) return false;
  bool changed = false;
  for (const char* key : keys) {
    const auto value = it->find(key);
    if (value != it->end() && value->is_null()) {
      *value = replacement;
      changed = true;
    }
  }
  return changed;
}

bool fix_status(ordered_json& evaluation) {
  const auto status = evaluation.find("status");
  if (status == evaluation.end() || !status->is_string() || *status != kRewardHack) return false;
  *status = std::string(status_name(EvalStatus::runtime_error));
  const auto log = evaluation.find("log");
  const std::string text = log != evaluation.end() && log->is_string() ? log->get<std::string>() : "";
  if (!text.starts_with(kRewardHack)) evaluation["log"] = std::string(kRewardHack) + ": " + text;
  return true;
}

bool fix_hardware(ordered_json& evaluation) {
  auto env = evaluation.find("environment");
  if (env == evaluation.end() || env->is_null()) {
    evaluation["environment"] = {{"hardware", "unknown"}};
    return true;
  }
  if (!env->is_object()) return false;
  const auto hardware = env->find("hardware");
  if (hardware != env->end() && hardware->is_string() && !hardware->get_ref<const std::string&>().empty())
    return false;
  (*env)["hardware"] = "unknown";
  return true;
}

}  // namespace

std::optional<std::string> upstream_trace_line(std::string_view line,
                                               const std::optional<std::string>& rename) {
  ordered_json t = parse_json_text(line, Location{"", 0, "trace"});
  bool changed = false;
  if (rename && t.is_object() && t.value("solution", ordered_json()) != *rename) {
    t["solution"] = *rename;
    changed = true;
  }
  auto evaluation = t.is_object() ? t.find("evaluation") : t.end();
  if (evaluation != t.end() && evaluation->is_object()) {
    changed |= fix_status(*evaluation);
    changed |=
        fix_null_numbers(*evaluation, "correctness", {"max_relative_error", "max_absolute_error"}, "NaN");
    changed |= fix_null_numbers(*evaluation, "performance",
                                {"latency_ms", "reference_latency_ms", "speedup_factor"}, 0.0);
    changed |= fix_hardware(*evaluation);
  }
  if (!changed) return std::nullopt;
  return dump_compact(t);
}

}  // namespace kh::archive
