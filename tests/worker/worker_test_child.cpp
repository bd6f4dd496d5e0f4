// A worker that misbehaves on request, for the worker/ tests.
//
// `worker_test_child [serve]` answers requests whose kind picks the behaviour;
// `worker_test_child exit N` exits with code N before reading anything.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "worker/detail/frame_header.h"
#include "worker/worker_endpoint.h"

namespace {

using Json = nlohmann::ordered_json;

// What serve()'s after_reply hook did: how often it ran, and whether the next run sleeps.
int g_after_replies = 0;
bool g_slow_after_reply = false;

void after_reply() {
  ++g_after_replies;
  if (std::exchange(g_slow_after_reply, false)) std::this_thread::sleep_for(std::chrono::seconds(2));
}

[[noreturn]] void hang() {
  for (;;) ::pause();
}

[[noreturn]] void segfault() {
  volatile int* volatile nowhere = nullptr;
  *nowhere = 1;  // NOLINT(clang-analyzer-core.NullDereference): the crash is the point
  std::abort();
}

// Forks a grandchild that sleeps for ever, holding the inherited channel open.
pid_t fork_sleeper() {
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) hang();
  return pid;
}

Json open_files() {
  int opened = 0;
  for (;;) {
    if (::open("/dev/null", O_RDONLY) < 0) break;
    if (++opened > 100000) break;
  }
  int err = errno;
  return {{"opened", opened}, {"emfile", err == EMFILE}, {"error", std::strerror(err)}};
}

Json allocate(std::uint64_t bytes) {
  void* p = std::malloc(bytes);
  if (p) std::memset(p, 1, bytes);
  Json out = {{"ok", p != nullptr}};
  std::free(p);
  return out;
}

Json describe_fds() {
  Json fds = Json::array();
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) throw std::runtime_error("opendir(/proc/self/fd) failed");
  int own = ::dirfd(dir);
  while (dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    int fd = std::atoi(entry->d_name);
    if (fd != own) fds.push_back(fd);
  }
  ::closedir(dir);
  char cwd[4096];
  if (!::getcwd(cwd, sizeof cwd)) throw std::runtime_error("getcwd failed");
  return {{"fds", fds},
          {"channel_cloexec", (::fcntl(3, F_GETFD) & FD_CLOEXEC) != 0},
          {"cwd", cwd},
          {"pid", ::getpid()},
          {"pgid", ::getpgid(0)},
          {"sid", ::getsid(0)},
          {"extra", std::getenv("KH_TEST_EXTRA") ? std::getenv("KH_TEST_EXTRA") : ""}};
}

// Answers with the request's payload written into the reply region when it fits there.
kh::Message region_echo(kh::Channel& channel, const kh::Message& request) {
  const std::span<std::byte> region = channel.reply_region();
  const bool fits = !request.payload.empty() && request.payload.size() <= region.size();
  kh::Message reply = kh::Message::make("region_echo", request.request_id, {{"in_region", fits}});
  if (!fits) {
    reply.payload = request.payload;
    return reply;
  }
  std::memcpy(region.data(), request.payload.data(), request.payload.size());
  reply.payload_in_region = request.payload.size();
  return reply;
}

// A frame that says its payload is `claimed` bytes of the region, written by hand: the
// channel would refuse to send it.
[[noreturn]] void claim_region_bytes(const Json& claimed, std::uint64_t id) {
  const std::string json = Json{{"kind", "region_echo"}, {"payload_in_region", claimed}}.dump();
  const auto header = kh::detail::encode_frame_header({id, static_cast<std::uint32_t>(json.size()), 0});
  if (::write(3, header.data(), header.size()) < 0 || ::write(3, json.data(), json.size()) < 0) std::abort();
  hang();
}

// What the worker may do to the region's file: neither shrink nor grow it.
Json resize_region() {
  const bool shrunk = ::ftruncate(4, 0) == 0;
  const int shrink_errno = errno;
  const bool grown = ::ftruncate(4, off_t{1} << 32) == 0;
  return {{"shrunk", shrunk}, {"shrink_eperm", shrink_errno == EPERM}, {"grown", grown}};
}

kh::Message handle(kh::Channel& channel, const kh::Message& request) {
  const std::string& kind = request.kind();
  const Json& h = request.header;
  auto id = request.request_id;
  if (kind == "echo") {
    kh::Message reply = request;
    reply.header["kind"] = "echo";
    return reply;
  }
  if (kind == "sleep") hang();
  if (kind == "segfault") segfault();
  if (kind == "exit") std::exit(h.value("code", 0));
  if (kind == "ignore_sigterm") {
    ::signal(SIGTERM, SIG_IGN);
    channel.send(kh::Message::make("progress", id, {{"ready", true}}));
    hang();
  }
  if (kind == "garbage") {
    const char junk[] = "this is definitely not a KHW1 frame header";
    if (::write(3, junk, sizeof junk) < 0) std::abort();
    hang();
  }
  if (kind == "wrong_id") {
    channel.send(kh::Message::make("result", id + 1000));
    hang();
  }
  if (kind == "fork_grandchild") return kh::Message::make("forked", id, {{"pid", fork_sleeper()}});
  if (kind == "fork_and_hang") {
    channel.send(kh::Message::make("progress", id, {{"pid", fork_sleeper()}}));
    hang();
  }
  if (kind == "fork_and_crash") {
    channel.send(kh::Message::make("progress", id, {{"pid", fork_sleeper()}}));
    segfault();
  }
  if (kind == "stderr_crash") {
    std::fprintf(stderr, "kaboom: the candidate fell over\n");
    std::fflush(stderr);
    std::abort();
  }
  if (kind == "open_files") return kh::Message::make("files", id, open_files());
  if (kind == "allocate")
    return kh::Message::make("allocated", id, allocate(h.at("bytes").get<std::uint64_t>()));
  if (kind == "throw") throw std::runtime_error("handler failed on purpose");
  if (kind == "progress") {
    for (int i = 0; i < h.value("count", 3); ++i) channel.send(kh::Message::make("log", id, {{"line", i}}));
    return kh::Message::make("done", id);
  }
  if (kind == "after_replies") return kh::Message::make("counted", id, {{"after_replies", g_after_replies}});
  if (kind == "slow_after_reply") {
    g_slow_after_reply = true;
    return kh::Message::make("slow", id);
  }
  if (kind == "describe") return kh::Message::make("described", id, describe_fds());
  if (kind == "region_echo") return region_echo(channel, request);
  if (kind == "region_overclaim") claim_region_bytes(channel.reply_region().size() + 1, id);
  if (kind == "region_claim_text") claim_region_bytes("all of it", id);
  if (kind == "region_resize") return kh::Message::make("resized", id, resize_region());
  if (kind == "print") {
    std::printf("hello stdout\n");
    std::fflush(stdout);
    return kh::Message::make("printed", id);
  }
  if (kind == "close_channel") {
    ::close(3);
    hang();
  }
  if (kind == "busy") {
    volatile unsigned long spins = 0;
    for (;;) spins = spins + 1;
  }
  throw std::runtime_error("unknown request kind '" + kind + "'");
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "serve";
  if (mode == "exit") return argc > 2 ? std::atoi(argv[2]) : 0;
  kh::Channel channel = kh::open_inherited_channel();
  kh::serve(
      channel, [&](const kh::Message& request) { return handle(channel, request); }, after_reply);
  return 0;
}
