#include "worker/channel.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "error/error.h"
#include "worker/detail/frame_header.h"
#include "worker/socket_pair.h"

namespace kh {
namespace {

using namespace std::chrono_literals;
using Clock = Channel::Clock;

// Raw bytes of a frame, built by hand so the tests can cut or corrupt it.
std::string raw_frame(std::uint64_t id, const std::string& json, const std::string& payload) {
  auto header = detail::encode_frame_header({id, static_cast<std::uint32_t>(json.size()), payload.size()});
  return std::string(reinterpret_cast<const char*>(header.data()), header.size()) + json + payload;
}

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    ASSERT_GT(n, 0);
    done += static_cast<std::size_t>(n);
  }
}

std::vector<std::byte> bytes_of(const std::string& text) {
  std::vector<std::byte> out(text.size());
  std::transform(text.begin(), text.end(), out.begin(), [](char c) { return static_cast<std::byte>(c); });
  return out;
}

struct RawPeer {
  RawPeer() {
    auto pair = make_socket_pair();
    channel = std::make_unique<Channel>(std::move(pair.parent), options);
    peer = std::move(pair.child);
  }
  explicit RawPeer(ChannelOptions opts) : options(std::move(opts)) {
    auto pair = make_socket_pair();
    channel = std::make_unique<Channel>(std::move(pair.parent), options);
    peer = std::move(pair.child);
  }
  ChannelOptions options;
  std::unique_ptr<Channel> channel;
  UniqueFd peer;
};

std::string receive_error(Channel& channel) {
  try {
    (void)channel.receive(Clock::now() + 1s);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Channel, RoundTripsHeaderAndPayload) {
  auto pair = make_socket_pair();
  Channel a(std::move(pair.parent));
  Channel b(std::move(pair.child));
  a.send(Message::make("hello", 42, {{"z", 1}, {"a", "two"}}, bytes_of("payload!")));
  auto got = b.receive(Clock::now() + 1s);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->request_id, 42u);
  EXPECT_EQ(got->kind(), "hello");
  EXPECT_EQ(got->header.dump(), R"({"kind":"hello","z":1,"a":"two"})");  // key order kept
  EXPECT_EQ(got->payload, bytes_of("payload!"));
}

TEST(Channel, RoundTripsA256MiBPayload) {
  auto pair = make_socket_pair();
  Channel a(std::move(pair.parent));
  Channel b(std::move(pair.child));
  std::vector<std::byte> big(std::size_t{256} << 20);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::byte>((i * 131) >> 7);
  std::thread sender([&] { a.send(Message::make("big", 1, nullptr, big)); });
  auto got = b.receive(Clock::now() + 30s);
  sender.join();
  ASSERT_TRUE(got);
  ASSERT_EQ(got->payload.size(), big.size());
  EXPECT_TRUE(got->payload == big);
}

TEST(Channel, AssemblesAFrameThatArrivesInPieces) {
  RawPeer p;
  std::string frame = raw_frame(7, R"({"kind":"split"})", "0123456789");
  // Cut inside the fixed header, inside the JSON and inside the payload.
  std::size_t at = 0;
  for (std::size_t cut : {std::size_t{5}, std::size_t{20}, std::size_t{35}, frame.size()}) {
    EXPECT_FALSE(p.channel->receive(Clock::now() + 5ms)) << "frame complete before byte " << at;
    write_all(p.peer.get(), frame.substr(at, cut - at));
    at = cut;
  }
  auto got = p.channel->receive(Clock::now() + 1s);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->request_id, 7u);
  EXPECT_EQ(got->kind(), "split");
  EXPECT_EQ(got->payload, bytes_of("0123456789"));
}

TEST(Channel, ReturnsNothingAtTheDeadline) {
  RawPeer p;
  auto start = Clock::now();
  EXPECT_FALSE(p.channel->receive(start + 60ms));
  auto waited = Clock::now() - start;
  EXPECT_GE(waited, 60ms);
  EXPECT_LT(waited, 1s);
  EXPECT_FALSE(p.channel->receive(Clock::now() - 1s));  // a past deadline only polls
}

TEST(Channel, RejectsAnOversizedJsonHeader) {
  RawPeer p;
  auto header = detail::encode_frame_header({1, (64u << 20) + 1, 0});
  write_all(p.peer.get(), std::string(reinterpret_cast<const char*>(header.data()), header.size()));
  EXPECT_NE(receive_error(*p.channel).find("JSON header of 67108865 bytes exceeds the limit"),
            std::string::npos);
}

TEST(Channel, RejectsAPayloadOverTheCap) {
  ChannelOptions options;
  options.max_payload_bytes = 1024;
  RawPeer p(options);
  write_all(p.peer.get(), raw_frame(1, R"({"kind":"x"})", std::string(1025, 'x')));
  EXPECT_NE(receive_error(*p.channel).find("payload of 1025 bytes exceeds the limit of 1024"),
            std::string::npos);
}

std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

TEST(Channel, CommitsMemoryOnlyForPayloadBytesThatArrived) {
  RawPeer p;  // a peer may claim 8 GiB and send 3 bytes; that must not cost 8 GiB
  auto before = resident_bytes();
  auto header = detail::encode_frame_header({1, 12, std::uint64_t{8} << 30});
  write_all(p.peer.get(), std::string(reinterpret_cast<const char*>(header.data()), header.size()) +
                              R"({"kind":"x"})" + "abc");
  EXPECT_FALSE(p.channel->receive(Clock::now() + 20ms));
  EXPECT_LT(resident_bytes(), before + (std::size_t{64} << 20));
}

TEST(Channel, RejectsABadMagic) {
  RawPeer p;
  std::string frame = raw_frame(1, R"({"kind":"x"})", "");
  frame[0] = 'X';
  write_all(p.peer.get(), frame);
  EXPECT_NE(receive_error(*p.channel).find("bad frame magic"), std::string::npos);
}

TEST(Channel, RejectsAnotherVersion) {
  RawPeer p;
  std::string frame = raw_frame(1, R"({"kind":"x"})", "");
  frame[4] = 2;
  write_all(p.peer.get(), frame);
  EXPECT_NE(receive_error(*p.channel).find("unsupported frame version 2"), std::string::npos);
}

TEST(Channel, RejectsInvalidJson) {
  RawPeer p;
  write_all(p.peer.get(), raw_frame(1, R"({"kind": oops})", ""));
  EXPECT_NE(receive_error(*p.channel).find("not valid JSON"), std::string::npos);
}

TEST(Channel, RejectsAHeaderWithoutKind) {
  RawPeer p;
  write_all(p.peer.get(), raw_frame(1, R"({"kind": 3})", ""));
  EXPECT_NE(receive_error(*p.channel).find("no string \"kind\""), std::string::npos);
}

TEST(Channel, ReportsEofAndStaysFailed) {
  RawPeer p;
  write_all(p.peer.get(), raw_frame(1, R"({"kind":"x"})", "").substr(0, 10));
  p.peer.reset();
  EXPECT_EQ(receive_error(*p.channel), "worker closed the channel in the middle of a frame");
  EXPECT_TRUE(p.channel->peer_closed());
  EXPECT_EQ(receive_error(*p.channel), "worker closed the channel in the middle of a frame");
}

TEST(Channel, SendingToAClosedPeerThrowsInsteadOfRaisingSigpipe) {
  RawPeer p;
  p.peer.reset();
  EXPECT_THROW(p.channel->send(Message::make("x", 1)), Error);  // SIGPIPE would kill the test
  EXPECT_TRUE(p.channel->peer_closed());
}

TEST(Channel, SendGivesUpAtTheDeadlineWhenThePeerDoesNotRead) {
  RawPeer p;
  std::vector<std::byte> big(std::size_t{16} << 20);
  EXPECT_FALSE(p.channel->send(Message::make("x", 1, nullptr, big), Clock::now() + 50ms));
  EXPECT_THROW(p.channel->send(Message::make("x", 2)), Error);  // the stream is cut mid-frame
}

}  // namespace
}  // namespace kh
