#include "control/step_marks.h"

#include <fmt/format.h>

#include "archive/controller_log.h"
#include "archive/utc_time.h"
#include "control/process_identity.h"
#include "error/error.h"

namespace kh::control {
namespace {

constexpr std::string_view kPrefix = "step/";

using ordered_json = nlohmann::ordered_json;

bool running(const ordered_json& mark) { return mark.value("running", false); }

std::size_t count_of(const ordered_json& mark, const char* field) {
  const auto it = mark.find(field);
  return it != mark.end() && it->is_array() ? it->size() : 0;
}

std::size_t strike_count(const ordered_json& mark) { return count_of(mark, "strikes"); }

// Where a strike of this mark goes: a batch's and a contained step's are shared
// (step_marks.h).
const char* strikes_field(const ordered_json& mark) {
  return mark.value("batch", 1) > 1 || mark.value("contained", false) ? "shared_strikes" : "strikes";
}

}  // namespace

StepMarks::StepMarks(archive::Archive& archive, std::string loop_id)
    : archive_(archive), loop_id_(std::move(loop_id)) {
  for (auto& [key, value] : archive::load_manifest(archive_, loop_id_)) {
    if (key.starts_with(kPrefix) && value.is_object()) marks_.emplace(key.substr(kPrefix.size()), value);
  }
}

void StepMarks::settle(const std::function<bool(const std::string& key)>& recorded) {
  const ProcessIdentity me = this_process();
  for (auto& [key, mark] : marks_) {
    if (!running(mark)) continue;
    const ProcessIdentity owner = ProcessIdentity::from_json(mark.value("owner", ordered_json::object()));
    if (owner.pid == me.pid && owner.start_ticks == me.start_ticks) continue;
    if (is_running(owner)) {
      throw Error(Location{archive_.dir().string(), 0, "--loop"},
                  fmt::format("loop {} is running in process {} (step {}); one loop runs in one process "
                              "at a time",
                              loop_id_, owner.pid, key));
    }
    mark["running"] = false;
    if (!recorded(key)) {
      const int batch = mark.value("batch", 1);
      mark[strikes_field(mark)].push_back(
          {{"how", fmt::format("the orchestrator (pid {}) died while this ran (started at {}){}", owner.pid,
                               mark.value("started_at", "?"),
                               batch > 1 ? fmt::format(", one of {} steps side by side", batch)
                               : mark.value("contained", false) ? ", inside a jail it cannot signal out of"
                                                                : "")},
           {"noticed_at", archive::utc_now()}});
    }
    put(key);
  }
}

std::size_t StepMarks::strikes(std::string_view key) const {
  const auto it = marks_.find(key);
  return it == marks_.end() ? 0 : strike_count(it->second);
}

std::size_t StepMarks::shared_strikes(std::string_view key) const {
  const auto it = marks_.find(key);
  return it == marks_.end() ? 0 : count_of(it->second, "shared_strikes");
}

std::vector<std::string> StepMarks::strike_reasons(std::string_view key) const {
  std::vector<std::string> out;
  const auto it = marks_.find(key);
  if (it == marks_.end() || !it->second.contains("strikes")) return out;
  for (const auto& s : it->second["strikes"]) out.push_back(s.value("how", std::string()));
  return out;
}

std::set<std::string> StepMarks::banned() const {
  std::set<std::string> out;
  for (const auto& [key, mark] : marks_) {
    const std::string id = mark.value("content_id", std::string());
    if (!id.empty() && strike_count(mark) >= kStrikesToBan) out.insert(id);
  }
  return out;
}

void StepMarks::begin(const std::string& key, const std::string& content_id, bool retained_best,
                      std::size_t batch, bool contained) {
  ordered_json& mark = marks_[key];
  if (!mark.is_object()) mark = ordered_json::object();
  mark["content_id"] = content_id;
  mark["retained_best"] = retained_best;
  mark["running"] = true;
  if (batch > 1) {
    mark["batch"] = batch;
  } else {
    mark.erase("batch");
  }
  if (contained) {
    mark["contained"] = true;
  } else {
    mark.erase("contained");
  }
  mark["owner"] = this_process().json();
  mark["started_at"] = archive::utc_now();
  if (!mark.contains("strikes")) mark["strikes"] = ordered_json::array();
  put(key);
}

void StepMarks::strike(const std::string& key, const std::string& how) {
  ordered_json& mark = marks_[key];
  mark["running"] = false;
  mark[strikes_field(mark)].push_back({{"how", how}, {"noticed_at", archive::utc_now()}});
  put(key);
}

void StepMarks::end(const std::string& key) {
  const auto it = marks_.find(key);
  if (it == marks_.end()) return;
  if (strike_count(it->second) == 0) {
    archive::erase_manifest(archive_, loop_id_, std::string(kPrefix) + key);
    marks_.erase(it);
    return;
  }
  it->second["running"] = false;
  put(key);
}

void StepMarks::put(const std::string& key) {
  archive::put_manifest(archive_, loop_id_, std::string(kPrefix) + key, marks_.at(key));
}

}  // namespace kh::control
