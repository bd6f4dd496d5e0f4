#include "archive/step_runs.h"

#include <nlohmann/json.hpp>

#include "archive/sqlite_statement.h"

namespace kh::archive {

namespace {

// The end of a step run's command_line_json: `"--step","<key>"]`.
std::string command_line_suffix(std::string_view key) {
  return nlohmann::json::array({"--step", std::string(key)}).dump().substr(1);
}

Statement step_runs_query(Archive& archive, std::string_view key, const char* limit) {
  Statement s = archive.db().prepare(
      std::string(
          "SELECT id FROM runs WHERE origin = 'controller' AND substr(command_line_json, -length(?1)) = "
          "?1 ORDER BY id") +
      limit);
  s.bind(1, command_line_suffix(key));
  return s;
}

}  // namespace

void append_step_key(std::vector<std::string>& command_line, std::string_view key) {
  command_line.insert(command_line.end(), {"--step", std::string(key)});
}

std::optional<RowId> find_step_run(Archive& archive, std::string_view key) {
  Statement s = step_runs_query(archive, key, " LIMIT 1");
  if (!s.step()) return std::nullopt;
  return s.column_int(0);
}

std::vector<RowId> find_step_runs(Archive& archive, std::string_view key) {
  Statement s = step_runs_query(archive, key, "");
  std::vector<RowId> out;
  while (s.step()) out.push_back(s.column_int(0));
  return out;
}

}  // namespace kh::archive
