#include "worker/await_reply.h"

#include <gtest/gtest.h>

#include <chrono>

#include "error/error.h"
#include "worker/socket_pair.h"

namespace kh {
namespace {

using namespace std::chrono_literals;
using Clock = Channel::Clock;

struct Pair {
  Pair() {
    auto fds = make_socket_pair();
    orchestrator = std::make_unique<Channel>(std::move(fds.parent));
    worker = std::make_unique<Channel>(std::move(fds.child));
  }
  std::unique_ptr<Channel> orchestrator;
  std::unique_ptr<Channel> worker;
};

TEST(AwaitReply, CollectsNotesThenReturnsTheReply) {
  Pair p;
  p.worker->send(Message::make("log", 7, {{"line", "warming up"}}));
  p.worker->send(Message::make("progress", 7, {{"done", 0.5}}));
  p.worker->send(Message::make("result", 7));
  std::vector<Message> notes;
  auto reply = await_reply(*p.orchestrator, 7, Clock::now() + 1s, notes);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->kind(), "result");
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].kind(), "log");
  EXPECT_EQ(notes[1].kind(), "progress");
}

TEST(AwaitReply, RejectsAReplyToAnotherRequest) {
  Pair p;
  p.worker->send(Message::make("result", 8));
  std::vector<Message> notes;
  try {
    (void)await_reply(*p.orchestrator, 7, Clock::now() + 1s, notes);
    FAIL() << "a reply with the wrong id was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "reply for request 8 does not match request 7");
  }
}

TEST(AwaitReply, RejectsANoteForAnotherRequest) {
  Pair p;
  p.worker->send(Message::make("log", 6));
  std::vector<Message> notes;
  EXPECT_THROW((void)await_reply(*p.orchestrator, 7, Clock::now() + 1s, notes), Error);
}

TEST(AwaitReply, LimitsTheNumberOfNotes) {
  Pair p;
  for (int i = 0; i < 4; ++i) p.worker->send(Message::make("log", 1));
  std::vector<Message> notes;
  try {
    (void)await_reply(*p.orchestrator, 1, Clock::now() + 1s, notes, 3);
    FAIL() << "note flood accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "worker sent more than 3 log/progress frames");
  }
}

TEST(AwaitReply, ReturnsNothingAtTheDeadline) {
  Pair p;
  p.worker->send(Message::make("log", 1));
  std::vector<Message> notes;
  EXPECT_FALSE(await_reply(*p.orchestrator, 1, Clock::now() + 20ms, notes));
  EXPECT_EQ(notes.size(), 1u);
}

}  // namespace
}  // namespace kh
