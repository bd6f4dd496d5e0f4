#include "build/toolchain.h"

#include "build/detail/child_process.h"
#include "error/error.h"

namespace kh {

bool Toolchain::available() const {
  try {
    (void)executable();
    return true;
  } catch (const Error&) {  // "not installed" is the answer, not a failure
    return false;
  }
}

std::vector<std::string> Toolchain::command(const CompileJob& job) const {
  std::vector<std::string> argv{executable().string()};
  for (std::string& f : flags(job.arch)) argv.push_back(std::move(f));
  for (const auto& dir : job.include_dirs) argv.push_back("-I" + dir.string());
  for (const std::string& d : job.defines) argv.push_back("-D" + d);
  for (const std::string& f : job.extra_flags) argv.push_back(f);
  argv.push_back("-o");
  argv.push_back(job.output.string());
  for (const auto& src : job.sources) argv.push_back(src.string());
  for (std::string& f : link_flags()) argv.push_back(std::move(f));
  auto linker = [&](const std::string& option) {
    for (std::string& f : linker_option(option)) argv.push_back(std::move(f));
  };
  for (const auto& dir : job.library_dirs) {
    argv.push_back("-L" + dir.string());
    linker("-rpath," + dir.string());
  }
  if (!job.libraries.empty()) linker("--as-needed");
  for (const std::string& lib : job.libraries) argv.push_back("-l" + lib);
  return argv;
}

CompileOutcome Toolchain::compile_shared(const CompileJob& job) const {
  CompileOutcome out;
  out.command = command(job);
  const detail::ProcessOutcome run = detail::run_process(out.command, job.work_dir, job.timeout);
  out.log = run.output;
  out.seconds = run.seconds;
  if (run.timed_out) {
    out.status = BuildResult::Status::timeout;
  } else if (run.exit_code == 0 && std::filesystem::exists(job.work_dir / job.output)) {
    out.status = BuildResult::Status::ok;
  } else {
    out.status = BuildResult::Status::compile_error;
  }
  return out;
}

}  // namespace kh
