// kharness: registers the subcommands and maps parse failures to exit status 2.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "base/process_group_registry.h"
#include "cli/ablate_command.h"
#include "cli/archive_command.h"
#include "cli/eval_command.h"
#include "cli/invocation.h"
#include "cli/optimize_command.h"
#include "cli/peaks_command.h"
#include "cli/profile_command.h"
#include "cli/report_command.h"
#include "cli/serve_command.h"
#include "cli/skills_command.h"
#include "cli/steer_command.h"
#include "cli/validate_command.h"

int main(int argc, char** argv) {
  // Compilers, ncu sessions, workers and agents' commands lead process groups of their
  // own: stopped by a signal, kharness stops them too.
  kh::kill_child_groups_on_termination();
  CLI::App app{"kharness: evaluate and optimise GPU kernels"};
  app.require_subcommand(1);
  int exit_code = 0;
  kh::cli::register_validate(app, exit_code);
  kh::cli::register_eval(app, exit_code);
  kh::cli::register_peaks(app, exit_code);
  kh::cli::register_profile(app, exit_code);
  kh::cli::register_archive(app, exit_code);
  kh::cli::register_rerun(app, exit_code);
  kh::cli::register_report(app, exit_code);
  kh::cli::register_serve(app, exit_code);
  kh::cli::register_steer(app, exit_code);
  kh::cli::register_skills(app, exit_code);
  kh::cli::register_optimize(app, exit_code);
  kh::cli::register_ablate(app, exit_code);
  kh::cli::register_worker(app, exit_code);
  kh::cli::remember_invocation(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with status 0; every real usage error is 2.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    // What no command turned into a kh::Error (a file system or allocation failure on a
    // hostile input) still ends in one line and a status, never in abort().
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
  return exit_code;
}
