#include "scale/slurm_settings.h"

#include <fmt/format.h>

#include <fstream>
#include <functional>
#include <map>

#include "error/error.h"

namespace kh::scale {

namespace {

using json = nlohmann::ordered_json;

template <class T>
void read(const json& value, T& out, const Location& where) {
  try {
    out = value.get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw Error(where, std::string("wrong type: ") + e.what());
  }
}

using Reader = std::function<void(const json&, SlurmSettings&, const Location&)>;

template <class T>
Reader into(T SlurmSettings::*member) {
  return [member](const json& v, SlurmSettings& s, const Location& where) { read(v, s.*member, where); };
}

Reader into_path(std::filesystem::path SlurmSettings::*member) {
  return [member](const json& v, SlurmSettings& s, const Location& where) {
    std::string text;
    read(v, text, where);
    s.*member = text;
  };
}

const std::map<std::string, Reader>& readers() {
  static const std::map<std::string, Reader> r = {
      {"shared_dir", into_path(&SlurmSettings::shared_dir)},
      {"partition", into(&SlurmSettings::partition)},
      {"account", into(&SlurmSettings::account)},
      {"time", into(&SlurmSettings::time)},
      {"gres", into(&SlurmSettings::gres)},
      {"sbatch", into(&SlurmSettings::sbatch)},
      {"setup", into(&SlurmSettings::setup)},
      {"kharness", into_path(&SlurmSettings::kharness)},
      {"cache_dir", into_path(&SlurmSettings::cache_dir)},
      {"bin_dir", into_path(&SlurmSettings::bin_dir)},
      {"gpus", into(&SlurmSettings::gpus)},
      {"tasks_per_evaluation", into(&SlurmSettings::tasks_per_evaluation)},
      {"max_parallel", into(&SlurmSettings::max_parallel)},
      {"max_attempts", into(&SlurmSettings::max_attempts)},
      {"poll_seconds", into(&SlurmSettings::poll_seconds)},
      {"result_grace_seconds", into(&SlurmSettings::result_grace_seconds)},
      {"cancel_wait_seconds", into(&SlurmSettings::cancel_wait_seconds)},
  };
  return r;
}

}  // namespace

SlurmSettings slurm_settings_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw Error(Location{where, 0, ""}, "a Slurm site file is a JSON object");
  SlurmSettings s;
  for (const auto& [key, value] : j.items()) {
    const auto it = readers().find(key);
    if (it == readers().end()) {
      std::string known;
      for (const auto& [k, r] : readers()) known += (known.empty() ? "" : ", ") + k;
      throw Error(Location{where, 0, key}, "unknown setting (known: " + known + ")");
    }
    it->second(value, s, Location{where, 0, key});
  }
  return s;
}

SlurmSettings read_slurm_settings(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw Error(Location{file.string(), 0, ""}, "cannot open the Slurm site file");
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw Error(Location{file.string(), 0, ""}, "not valid JSON");
  return slurm_settings_from_json(j, file.string());
}

void check_slurm_settings(const SlurmSettings& s) {
  if (s.shared_dir.empty()) {
    throw Error(
        Location{"", 0, "shared_dir"},
        "the Slurm executor needs a folder every node sees (--shared-dir, or shared_dir in --slurm-config)");
  }
  if (s.max_attempts < 1) throw Error(Location{"", 0, "max_attempts"}, "must be at least 1");
  if (s.poll_seconds <= 0) throw Error(Location{"", 0, "poll_seconds"}, "must be positive");
  for (const std::string& line : s.sbatch) {
    if (line.find('\n') != std::string::npos || !line.starts_with("-"))
      throw Error(Location{"", 0, "sbatch"},
                  fmt::format("'{}' is not one sbatch option (e.g. --qos=high)", line));
  }
}

}  // namespace kh::scale
