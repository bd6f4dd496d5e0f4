// The shared reply region (worker/shared_region.h) between a real worker process and the
// orchestrator's channel: payloads arrive intact through it, payloads too large for it
// still travel through the socket, and a worker cannot make the orchestrator read past it.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <vector>

#include "error/error.h"
#include "scratch_dir.h"
#include "worker/await_reply.h"
#include "worker/worker_process.h"

namespace kh {
namespace {

using namespace std::chrono_literals;
using Clock = Channel::Clock;

SpawnOptions child_options(const test::ScratchDir& dir, std::size_t region_bytes) {
  SpawnOptions options;
  options.argv = {KHARNESS_WORKER_TEST_CHILD};
  options.work_dir = dir.path() / "work";
  options.reply_region_bytes = region_bytes;
  return options;
}

std::vector<std::byte> pattern(std::size_t bytes) {
  std::vector<std::byte> out(bytes);
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<std::byte>((i * 131 + 7) % 251);
  return out;
}

Message ask(WorkerProcess& child, std::string_view kind, std::vector<std::byte> payload = {}) {
  child.channel().send(Message::make(kind, 1, nullptr, std::move(payload)));
  std::vector<Message> notes;
  auto reply = await_reply(child.channel(), 1, Clock::now() + 10s, notes);
  if (!reply) throw Error("no reply to " + std::string(kind));
  return *reply;
}

TEST(ReplyRegion, APayloadWrittenInTheRegionArrivesWholeAndTheKeyIsGone) {
  test::ScratchDir dir;
  auto child = WorkerProcess::spawn(child_options(dir, std::size_t{64} << 20));
  // Above the 16 MiB slice: copied out by several threads.
  const std::vector<std::byte> sent = pattern((std::size_t{40} << 20) + 3);
  const Message reply = ask(child, "region_echo", sent);
  EXPECT_EQ(reply.header.at("in_region"), true);
  EXPECT_FALSE(reply.header.contains(kRegionPayloadKey));
  ASSERT_EQ(reply.payload.size(), sent.size());
  EXPECT_TRUE(reply.payload == sent);
  // The region is reused by the next reply: a smaller one must not carry the old tail.
  const std::vector<std::byte> second = pattern(1000);
  const Message again = ask(child, "region_echo", second);
  EXPECT_TRUE(again.payload == second);
}

// A worker with a region of `region_bytes` echoes `bytes` through the socket, whole.
void expect_echo_through_the_socket(std::size_t region_bytes, std::size_t bytes) {
  test::ScratchDir dir;
  auto child = WorkerProcess::spawn(child_options(dir, region_bytes));
  const std::vector<std::byte> sent = pattern(bytes);
  const Message reply = ask(child, "region_echo", sent);
  EXPECT_EQ(reply.header.at("in_region"), false);
  EXPECT_TRUE(reply.payload == sent);
}

TEST(ReplyRegion, APayloadLargerThanTheRegionStillArrivesThroughTheSocket) {
  expect_echo_through_the_socket(4096, 100000);
}

TEST(ReplyRegion, AWorkerStartedWithoutOneHasNone) { expect_echo_through_the_socket(0, 5000); }

TEST(ReplyRegion, TheWorkerCanNeitherShrinkNorGrowIt) {
  test::ScratchDir dir;
  auto child = WorkerProcess::spawn(child_options(dir, 1 << 20));
  const Message reply = ask(child, "region_resize");
  EXPECT_EQ(reply.header.at("shrunk"), false);
  EXPECT_EQ(reply.header.at("shrink_eperm"), true);
  EXPECT_EQ(reply.header.at("grown"), false);
  // The orchestrator still reads the whole region.
  const std::vector<std::byte> sent = pattern(1 << 20);
  EXPECT_TRUE(ask(child, "region_echo", sent).payload == sent);
}

void expect_channel_error(std::string_view kind, std::string_view says) {
  test::ScratchDir dir;
  auto child = WorkerProcess::spawn(child_options(dir, 1 << 20));
  try {
    (void)ask(child, kind);
    FAIL() << kind << " was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

TEST(ReplyRegion, AClaimBeyondTheRegionIsAChannelErrorNotARead) {
  expect_channel_error("region_overclaim", "in a shared region of 1048576");
}

TEST(ReplyRegion, AClaimThatIsNotAByteCountIsAChannelError) {
  expect_channel_error("region_claim_text", "'payload_in_region' is not a byte count");
}

TEST(ReplyRegion, TheOrchestratorCannotSendThroughTheRegionOrUseItsKey) {
  test::ScratchDir dir;
  auto child = WorkerProcess::spawn(child_options(dir, 1 << 20));
  Message reserved = Message::make("echo", 1, {{kRegionPayloadKey, 3}});
  EXPECT_THROW(child.channel().send(reserved), Error);
  // A payload said to lie in the region must fit in it.
  Message too_big = Message::make("echo", 1);
  too_big.payload_in_region = (1 << 20) + 1;
  EXPECT_THROW(child.channel().send(too_big), Error);
}

}  // namespace
}  // namespace kh
