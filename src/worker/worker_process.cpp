#include "worker/worker_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <system_error>
#include <utility>

#include "base/os_error.h"
#include "base/unique_fd.h"
#include "error/error.h"
#include "worker/socket_pair.h"

namespace kh {
namespace {

constexpr int kChannelFd = 3;
constexpr int kReplyRegionFd = 4;
constexpr std::string_view kChannelFdVariable = "KHARNESS_CHANNEL_FD";
constexpr std::string_view kReplyRegionFdVariable = "KHARNESS_REPLY_REGION_FD";

UniqueFd open_checked(const std::filesystem::path& path, int flags, mode_t mode = 0) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  if (fd < 0) throw os_error("open(" + path.string() + ")");
  return UniqueFd(fd);
}

UniqueFd open_log(const std::filesystem::path& path) {
  return open_checked(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
}

}  // namespace

WorkerProcess WorkerProcess::spawn(const SpawnOptions& options, ChannelOptions channel_options) {
  if (options.work_dir.empty()) throw Error("cannot start worker: no work_dir given");
  if (options.argv.empty()) throw Error("cannot start worker: argv is empty");
  std::error_code ec;
  std::filesystem::create_directories(options.work_dir, ec);
  if (ec)
    throw Error(
        fmt::format("cannot create worker directory '{}': {}", options.work_dir.string(), ec.message()));
  auto work_dir = std::filesystem::absolute(options.work_dir);

  ProcessSpec spec;
  spec.argv = options.argv;
  spec.cwd = work_dir;
  spec.role = "worker";
  spec.inherit_env = options.inherit_env;
  for (const auto& [key, value] : options.env_add) {
    if (key == kChannelFdVariable || key == kReplyRegionFdVariable)
      throw Error("cannot start worker: bad environment variable name '" + key + "'");
    spec.env.emplace_back(key, value);
  }
  spec.env.emplace_back(kChannelFdVariable, std::to_string(kChannelFd));
  spec.limits = options.limits;
  spec.no_new_privs = true;
  spec.jail = options.jail;
  if (spec.jail && spec.jail->scratch.empty()) spec.jail->scratch = work_dir;

  SocketPair sockets = make_socket_pair();
  UniqueFd out_log = open_log(work_dir / "stdout.log");
  UniqueFd err_log = open_log(work_dir / "stderr.log");
  spec.stdout_fd = out_log.get();
  spec.stderr_fd = err_log.get();
  spec.extra_fds = {{kChannelFd, sockets.child.get()}};
  SharedRegion region;
  if (options.reply_region_bytes > 0) {
    region = SharedRegion::create(options.reply_region_bytes);
    spec.extra_fds.emplace_back(kReplyRegionFd, region.fd());
    spec.env.emplace_back(kReplyRegionFdVariable, std::to_string(kReplyRegionFd));
  }
  ChildProcess process = ChildProcess::spawn(spec);
  // Only the worker may hold its end now: our copy would hide the worker's EOF.
  sockets.child.reset();
  Channel channel(std::move(sockets.parent), std::move(channel_options));
  if (region.mapped()) channel.attach_reply_region(std::move(region));
  return WorkerProcess(std::move(process), std::move(channel), work_dir);
}

WorkerProcess::WorkerProcess(ChildProcess process, Channel channel, std::filesystem::path work_dir)
    : process_(std::move(process)),
      channel_(std::make_unique<Channel>(std::move(channel))),
      work_dir_(std::move(work_dir)) {}

WorkerProcess& WorkerProcess::operator=(WorkerProcess&& other) noexcept {
  if (this != &other) {
    // The old worker dies before its channel closes, as in the destructor.
    process_ = std::move(other.process_);
    channel_ = std::move(other.channel_);
    work_dir_ = std::move(other.work_dir_);
  }
  return *this;
}

std::string WorkerProcess::stderr_tail(std::size_t max_bytes) const {
  auto path = stderr_path();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return {};
    throw os_error("open(" + path.string() + ")");
  }
  UniqueFd file(fd);
  struct stat info {};
  if (::fstat(file.get(), &info) != 0) throw os_error("fstat(" + path.string() + ")");
  auto size = static_cast<std::size_t>(info.st_size);
  std::size_t start = size > max_bytes ? size - max_bytes : 0;
  std::string out(size - start, '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::pread(file.get(), out.data() + got, out.size() - got, static_cast<off_t>(start + got));
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw os_error("pread(" + path.string() + ")");
    }
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

}  // namespace kh
