#include "scale/slurm_client.h"

#include <fmt/format.h>

#include <charconv>

#include "base/executable_lookup.h"
#include "base/process_runner.h"
#include "error/error.h"

namespace kh::scale {

namespace {

using std::chrono::seconds;

// Slurm's commands answer in well under a second; a controller that does not answer in
// this long is treated as unreachable for this poll.
constexpr seconds kCommandLimit{60};

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = text.find(separator, begin);
    out.push_back(text.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin));
    if (end == std::string_view::npos) return out;
    begin = end + 1;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\n')) s.remove_suffix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return s;
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::filesystem::path find_command(const std::filesystem::path& bin_dir, std::string_view name) {
  if (!bin_dir.empty()) {
    std::filesystem::path p = bin_dir / name;
    if (std::filesystem::is_regular_file(p)) return p;
    throw Error(Location{bin_dir.string(), 0, "bin_dir"}, fmt::format("no {} in this folder", name));
  }
  if (auto p = detail::find_compiler("", name, {})) return *p;
  throw Error(
      fmt::format("Slurm's {} is not on PATH: install Slurm's client commands (Debian: slurm-client) "
                  "or name their folder with bin_dir in --slurm-config",
                  name));
}

std::optional<std::filesystem::path> find_optional(const std::filesystem::path& bin_dir,
                                                   std::string_view name) {
  try {
    return find_command(bin_dir, name);
  } catch (const Error&) {
    return std::nullopt;  // sacct only refines failure messages
  }
}

// stderr merged into the output: what sbatch says when it refuses a job goes there.
ProcessRun run(const std::vector<std::string>& argv) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.role = "Slurm's " + std::filesystem::path(argv.front()).filename().string();
  RunOptions options;
  options.timeout = kCommandLimit;
  return run_process(std::move(spec), options);
}

}  // namespace

std::vector<QueueRow> parse_queue(std::string_view text) {
  std::vector<QueueRow> rows;
  for (std::string_view line : split(text, '\n')) {
    line = trim(line);
    const std::vector<std::string_view> f = split(line, '|');
    if (f.size() != 5 || !all_digits(f[0]) || !all_digits(f[1])) continue;
    QueueRow r;
    r.job_id = std::string(f[0]);
    std::from_chars(f[1].data(), f[1].data() + f[1].size(), r.task);
    r.state = std::string(f[2]);
    r.node = std::string(f[3]);
    r.reason = std::string(f[4]);
    if (r.reason == "None") r.reason.clear();
    rows.push_back(std::move(r));
  }
  return rows;
}

std::optional<std::string> parse_submitted_job_id(std::string_view text) {
  for (std::string_view line : split(text, '\n')) {
    line = trim(line);
    const std::string_view id = line.substr(0, line.find(';'));
    if (all_digits(id)) return std::string(id);
  }
  return std::nullopt;
}

SlurmClient::SlurmClient(const std::filesystem::path& bin_dir)
    : sbatch_(find_command(bin_dir, "sbatch")),
      squeue_(find_command(bin_dir, "squeue")),
      scancel_(find_command(bin_dir, "scancel")),
      sacct_(find_optional(bin_dir, "sacct")) {}

std::string SlurmClient::submit(const std::filesystem::path& script) const {
  const ProcessRun out = run({sbatch_.string(), "--parsable", script.string()});
  const auto id = out.exit_code() == 0 ? parse_submitted_job_id(out.out) : std::nullopt;
  if (!id) {
    throw Error(Location{script.string(), 0, ""},
                fmt::format("sbatch refused the job (exit {}{}): {}", out.exit_code(),
                            out.timed_out ? ", timed out" : "", trim(out.out)));
  }
  return *id;
}

std::optional<std::vector<QueueRow>> SlurmClient::queue(const std::vector<std::string>& job_ids) const {
  std::vector<QueueRow> rows;
  // One job at a time: squeue refuses a whole list when one id has aged out of the
  // controller's memory.
  for (const std::string& id : job_ids) {
    const ProcessRun out = run({squeue_.string(), "-h", "-r", "-t", "all", "-j", id, "-o", kQueueFormat});
    if (out.exit_code() != 0) {
      if (out.out.find("Invalid job id") != std::string::npos) continue;  // forgotten: no rows
      return std::nullopt;
    }
    for (QueueRow& r : parse_queue(out.out)) rows.push_back(std::move(r));
  }
  return rows;
}

bool SlurmClient::cancel(const std::vector<std::string>& job_ids) const {
  if (job_ids.empty()) return true;
  std::vector<std::string> argv = {scancel_.string()};
  argv.insert(argv.end(), job_ids.begin(), job_ids.end());
  return run(argv).exit_code() == 0;
}

std::optional<std::string> SlurmClient::accounting(const std::string& job_id, std::size_t task) const {
  if (!sacct_) return std::nullopt;
  const std::string id = fmt::format("{}_{}", job_id, task);
  const ProcessRun out =
      run({sacct_->string(), "-n", "-P", "-X", "-j", id, "-o", "JobID,State,ExitCode,NodeList"});
  if (out.exit_code() != 0) return std::nullopt;
  for (std::string_view line : split(out.out, '\n')) {
    const std::vector<std::string_view> f = split(trim(line), '|');
    if (f.size() == 4 && f[0] == id) return fmt::format("{} exit {} on {}", f[1], f[2], f[3]);
  }
  return std::nullopt;
}

}  // namespace kh::scale
