// Runs a piece of work as one write transaction (BEGIN IMMEDIATE ... COMMIT), retried
// from the start while other processes hold the write lock.
//
// BEGIN IMMEDIATE takes the write lock up front, so a transaction never fails half way
// for lock reasons; SQLite's busy_timeout waits for the lock first, and when even that
// runs out (many writers, long transactions) we roll back, sleep with exponential
// backoff and jitter, and run the whole body again. Any other error rolls back and
// propagates: nothing of the body is kept. The body must therefore only write to the
// database (files it needs, such as blobs, are written before).
#pragma once

#include <chrono>
#include <random>
#include <type_traits>

#include "archive/sqlite_database.h"
#include "archive/sqlite_error.h"

namespace kh::archive {

struct RetryPolicy {
  std::chrono::milliseconds first_wait{10};
  std::chrono::milliseconds longest_wait{1000};
  std::chrono::seconds give_up_after{600};  // then the BusyError propagates
};

// Sleeps between attempts; throws the last BusyError once the policy's time is spent.
class Backoff {
 public:
  explicit Backoff(RetryPolicy policy);
  void wait_or_throw(const BusyError& last);
  [[nodiscard]] int retries() const noexcept { return retries_; }

 private:
  RetryPolicy policy_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::milliseconds next_;
  std::minstd_rand jitter_;
  int retries_ = 0;
};

void begin_immediate(Database& db);
void commit(Database& db);
// Rolls back when a transaction is open; never throws (SQLite rolls back on close anyway).
void rollback_if_open(Database& db) noexcept;

template <class Body>
auto write_transaction(Database& db, Body&& body, RetryPolicy policy = {}) -> std::invoke_result_t<Body&> {
  using Result = std::invoke_result_t<Body&>;
  Backoff backoff(policy);
  for (;;) {
    try {
      begin_immediate(db);
      if constexpr (std::is_void_v<Result>) {
        body();
        commit(db);
        return;
      } else {
        Result result = body();
        commit(db);
        return result;
      }
    } catch (const BusyError& e) {
      rollback_if_open(db);
      backoff.wait_or_throw(e);
    } catch (...) {
      rollback_if_open(db);
      throw;
    }
  }
}

}  // namespace kh::archive
