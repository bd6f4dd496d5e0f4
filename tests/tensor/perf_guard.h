// Throughput tests only mean something in an optimized, uninstrumented build.
#pragma once

#include <gtest/gtest.h>

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
