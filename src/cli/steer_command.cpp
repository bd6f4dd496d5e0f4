// `kharness steer --archive DIR --loop ID|--definition NAME "TEXT"` and `--list`:
// parsing and printing; the directives themselves are control/steering.h's.
#include "cli/steer_command.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "archive/archive.h"
#include "cli/guarded_run.h"
#include "control/steering.h"
#include "error/error.h"

namespace kh::cli {
namespace {

struct SteerArgs {
  std::string archive;
  std::string loop;
  std::string definition;
  std::string text;
  std::string regime;
  std::string family;
  bool list = false;
  bool json = false;
};

std::string scope_of(const SteerArgs& a) {
  if (!a.loop.empty()) return a.loop;
  return a.definition.empty() ? std::string() : control::definition_scope(a.definition);
}

std::string status_of(const control::Directive& d) {
  return d.pending() ? "pending" : fmt::format("taken by {} in round {}", d.consumed_by, *d.consumed_round);
}

int list(archive::Archive& store, const SteerArgs& a) {
  const std::vector<control::Directive> all = control::list_directives(store, scope_of(a));
  if (a.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const control::Directive& d : all) out.push_back(d.json());
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  if (all.empty()) fmt::print("no directives\n");
  for (const control::Directive& d : all)
    fmt::print("{} #{} [{}] {}{}{}\n", d.scope, d.id, status_of(d), d.text,
               d.regime.empty() ? "" : fmt::format(" (regime {})", d.regime),
               d.family.empty() ? "" : fmt::format(" (family {})", d.family));
  return 0;
}

int add(archive::Archive& store, const SteerArgs& a) {
  if (a.loop.empty() == a.definition.empty())
    throw Error(Location{"", 0, "--loop"}, "give exactly one of --loop ID or --definition NAME");
  const control::Directive d = control::add_directive(store, {scope_of(a), a.text, a.regime, a.family});
  if (a.json) {
    std::cout << d.json().dump(2) << "\n";
  } else {
    fmt::print("recorded directive {} #{}: pending until the next round takes it\n", d.scope, d.id);
  }
  return 0;
}

int run_steer(const SteerArgs& a) {
  archive::Archive store = archive::Archive::open_existing(a.archive);
  if (a.list) return list(store, a);
  return add(store, a);
}

}  // namespace

void register_steer(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SteerArgs>();
  CLI::App* cmd = app.add_subcommand(
      "steer", "Give an optimisation loop a directive for its next round, or list directives (--list)");
  cmd->add_option("--archive", args->archive, "Archive folder")->required()->check(CLI::ExistingDirectory);
  cmd->add_option("--loop", args->loop, "The loop it is for");
  cmd->add_option("--definition", args->definition, "For the next round of any loop of this definition");
  cmd->add_option("text", args->text, "The directive, in words (\"try warp-specialised loads\")");
  cmd->add_option("--regime", args->regime, "The shape regime it is about (default: the heaviest)");
  cmd->add_option("--family", args->family, "The technique family it asks for");
  cmd->add_flag("--list", args->list,
                "List directives (of --loop or --definition, else all) and their state");
  cmd->add_flag("--json", args->json, "Print as JSON");
  cmd->callback([args, &exit_code] {
    guarded_run(exit_code, [&] {
      if (!args->list && args->text.empty())
        throw Error(Location{"", 0, "text"}, "say what to do: kharness steer --loop ID \"TEXT\"");
      return run_steer(*args);
    });
  });
}

}  // namespace kh::cli
