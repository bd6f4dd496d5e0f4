// Throughput tests only mean something in an optimized, uninstrumented build.
#pragma once

#include <gtest/gtest.h>
#include <time.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define KH_TEST_INSTRUMENTED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KH_TEST_INSTRUMENTED 1
#endif
#endif

#if !defined(NDEBUG) || defined(KH_TEST_INSTRUMENTED)
#define KH_SKIP_UNLESS_OPTIMIZED() GTEST_SKIP() << "throughput is only checked in optimized builds"
#else
#define KH_SKIP_UNLESS_OPTIMIZED() (void)0
#endif

// CPU time of the calling thread, in seconds. Throughput is measured against it rather
// than wall time: on a shared machine a descheduled test would otherwise look slow.
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// GB/s of one core hashing 256 MiB with `hash`, recorded as the test's GBps property.
template <class Hash>
double hash_gigabytes_per_second(Hash&& hash) {
  const std::vector<std::byte> big(std::size_t{256} << 20, std::byte{1});
  const double start = thread_cpu_seconds();
  volatile std::uint64_t h = hash(std::span<const std::byte>(big));
  (void)h;
  const double gbps = static_cast<double>(big.size()) / (thread_cpu_seconds() - start) / 1e9;
  ::testing::Test::RecordProperty("GBps", std::to_string(gbps));
  return gbps;
}
