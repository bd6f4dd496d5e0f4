// A writer process for the concurrency and kill -9 tests: records synthetic runs into
// an archive in a loop and says "committed RUN_ID" on stdout after each commit, so the
// test knows what must survive.
//
//   archive_test_writer ARCHIVE TAG RUNS TRACES_PER_RUN     (RUNS 0: until killed)
#include <cstdio>
#include <string>

#include "archive/run_writer.h"
#include "archive_fixtures.h"
#include "error/error.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: archive_test_writer ARCHIVE TAG RUNS TRACES_PER_RUN\n");
    return 2;
  }
  const std::string tag = argv[2];
  const long runs = std::stol(argv[3]);
  const int traces = std::stoi(argv[4]);
  try {
    kh::archive::Archive archive = kh::archive::Archive::open_or_create(argv[1]);
    for (long i = 0; runs == 0 || i < runs; ++i) {
      const auto written = kh::archive::write_run(
          archive, kh::archive::test::synthetic_run(tag + "-" + std::to_string(i), traces));
      std::printf("committed %lld\n", static_cast<long long>(written.run_id));
      std::fflush(stdout);
    }
  } catch (const kh::Error& e) {
    std::fprintf(stderr, "archive_test_writer: %s\n", e.what());
    return 1;
  }
  return 0;
}
