#include "compile/toolchain.h"

#include "base/process_runner.h"
#include "error/error.h"

namespace kh {

namespace {

// A compiler reads candidate sources, which can name any file (#include "/home/...")
// and so leak it into the build log: it runs in the jail, minus the GPU, seeing its
// own installation, the headers and the build folder, writing only there.
JailSpec compile_jail(const CompileJob& job, const std::filesystem::path& compiler) {
  JailSpec jail;
  // The installation around bin/ (nvcc's nvvm, include and lib folders beside it).
  jail.read_only.push_back(compiler.parent_path().parent_path());
  jail.read_only.push_back(compiler);  // itself, where that folder is one the jail replaces (/tmp)
  for (const auto& dirs : {job.include_dirs, job.library_dirs})
    for (const auto& dir : dirs)
      if (dir.is_absolute()) jail.read_only.push_back(dir);
  const std::filesystem::path work = std::filesystem::absolute(job.work_dir);
  jail.scratch = work;
  const std::filesystem::path output_dir = (work / job.output).lexically_normal().parent_path();
  if (output_dir != work) jail.writable.push_back(output_dir);
  return jail;
}

}  // namespace

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
  ProcessSpec spec;
  spec.argv = out.command;
  spec.cwd = job.work_dir;
  spec.role = "compiler";
  spec.jail = compile_jail(job, out.command.front());
  RunOptions options;
  options.timeout = job.timeout;
  const ProcessRun run = run_process(std::move(spec), options);
  out.log = run.out;
  out.seconds = run.seconds;
  if (run.timed_out) {
    out.status = BuildResult::Status::timeout;
    out.cacheable = false;
  } else if (run.exit_code() == 0 && std::filesystem::exists(job.work_dir / job.output)) {
    out.status = BuildResult::Status::ok;
  } else {
    out.status = BuildResult::Status::compile_error;
    out.cacheable = run.status.is_exited() && run.exit_code() != 127;  // 127: not executable
  }
  return out;
}

}  // namespace kh
