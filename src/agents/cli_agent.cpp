#include "agents/cli_agent.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "agents/answer_validation.h"
#include "agents/redaction.h"
#include "agents/workspace.h"
#include "base/process_runner.h"
#include "error/error.h"

namespace kh::agents {

namespace {

constexpr std::size_t kStderrExcerpt = 2000;

std::string tail(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(s.size() - n); }

// Token counts and dollars from cost.json or Claude Code's JSON result, when present.
void read_cost(const std::filesystem::path& workspace, const std::string& stdout_text, Proposal& p) {
  nlohmann::json j;
  std::ifstream in(workspace / "cost.json");
  if (in) {
    j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  } else {
    j = nlohmann::json::parse(stdout_text, nullptr, false);
  }
  if (!j.is_object()) return;
  const nlohmann::json usage = j.contains("usage") && j["usage"].is_object() ? j["usage"] : j;
  auto count = [&](const char* key) -> std::optional<std::int64_t> {
    if (usage.contains(key) && usage[key].is_number_integer()) return usage[key].get<std::int64_t>();
    return std::nullopt;
  };
  p.input_tokens = count("input_tokens");
  p.output_tokens = count("output_tokens");
  for (const char* key : {"usd", "total_cost_usd", "cost_usd"}) {
    if (j.contains(key) && j[key].is_number()) p.cost_note += fmt::format(", ${:.4f}", j[key].get<double>());
  }
}

}  // namespace

CliAgentConfig read_cli_agent_config(const nlohmann::json& config) {
  ConfigReader r(config, "cli");
  CliAgentConfig c;
  c.command = r.required_text("command");
  c.timeout = std::chrono::seconds(r.integer("timeout_s", 0));
  c.capture_bytes = static_cast<std::size_t>(r.integer("capture_bytes", std::int64_t{64} * 1024, 1024));
  c.secret_env = r.texts("secret_env", c.secret_env);
  c.workspace = read_workspace_settings(r);
  r.finish();
  return c;
}

Proposal CliAgent::propose(const ProposalContext& context) {
  const ComposedSkills skills = prepare_workspace(context, config_.workspace);
  const auto limit =
      config_.timeout.count() > 0 ? std::min(config_.timeout, context.timeout) : context.timeout;
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", config_.command};
  spec.cwd = context.workspace;
  spec.role = "agent command";
  RunOptions options;
  options.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(limit);
  options.merge_output = false;
  options.capture_bytes = config_.capture_bytes;
  options.keep_tail = true;
  const ProcessRun run = run_process(std::move(spec), options);
  const std::vector<std::string> secrets = secret_values(config_.secret_env);
  Proposal p;
  p.seconds = run.seconds;
  const std::string ending =
      run.timed_out ? fmt::format("killed at the time limit of {} s", limit.count()) : run.status.describe();
  p.transcript =
      redact(fmt::format("$ {}\n[{}; {:.1f} s; skills: {} included, {} left out]\n--- stdout ---\n{}\n"
                         "--- stderr ---\n{}\n",
                         config_.command, ending, run.seconds, skills.included.size(), skills.left_out.size(),
                         run.out, run.err),
             secrets);
  p.cost_note = fmt::format("cli: 1 command, {:.1f} s wall", run.seconds);
  read_cost(context.workspace, run.out, p);
  if (!run.timed_out && run.status.is_exited() && (run.status.code() == 126 || run.status.code() == 127)) {
    throw Error(Location{"", 0, "cli.command"},
                fmt::format("the command could not run ({}): {}", run.status.describe(),
                            redact(tail(run.err, kStderrExcerpt), secrets)));
  }
  if (run.timed_out || run.status != ExitStatus::exited(0)) {
    p.rejected.push_back({fmt::format("cli agent {}", ending), tail(run.err, kStderrExcerpt)});
    redact_proposal(p, secrets);
    scrub_workspace(context.workspace, secrets);
    return p;
  }
  AnswerReading answer =
      read_answer(answer_dir(context.workspace), context, name(), config_.workspace.limits);
  p.candidates = std::move(answer.candidates);
  p.rejected = std::move(answer.rejected);
  redact_proposal(p, secrets);
  // What the agent left in its workspace stays in the archive's folder: redacted too.
  scrub_workspace(context.workspace, secrets);
  return p;
}

}  // namespace kh::agents
