#include "archive/write_transaction.h"

#include <unistd.h>

#include <algorithm>
#include <thread>

namespace kh::archive {

Backoff::Backoff(RetryPolicy policy)
    : policy_(policy),
      start_(std::chrono::steady_clock::now()),
      next_(policy.first_wait),
      // Seeded per process so that writers that collided once do not collide again in step.
      jitter_(static_cast<unsigned>(getpid()) ^
              static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count())) {}

void Backoff::wait_or_throw(const BusyError& last) {
  if (std::chrono::steady_clock::now() - start_ >= policy_.give_up_after) throw last;
  std::uniform_int_distribution<long> spread(next_.count() / 2, next_.count());
  std::this_thread::sleep_for(std::chrono::milliseconds(spread(jitter_)));
  next_ = std::min(next_ * 2, policy_.longest_wait);
  ++retries_;
}

void begin_immediate(Database& db) { db.exec("BEGIN IMMEDIATE"); }

void commit(Database& db) { db.exec("COMMIT"); }

void rollback_if_open(Database& db) noexcept {
  if (!db.in_transaction()) return;
  try {
    db.exec("ROLLBACK");
  } catch (const SqliteError&) {
    // A failed ROLLBACK leaves SQLite to roll back when the connection closes or the
    // next BEGIN finds the journal; either way nothing of the body is committed.
  }
}

}  // namespace kh::archive
