// import then export reproduces a FlashInfer-Trace set byte for byte; importing twice
// adds nothing; bad documents are reported and skipped; what kharness recorded itself
// comes out in the upstream layout.
#include <gtest/gtest.h>

#include <map>

#include "archive/archive_check.h"
#include "archive/run_writer.h"
#include "archive/trace_set_export.h"
#include "archive/trace_set_import.h"
#include "archive_fixtures.h"
#include "error/error.h"

namespace kh::archive {
namespace {

namespace fs = std::filesystem;
using test::read_bytes;
using test::TempDir;

// Every regular file under `root`, by relative path, with its bytes.
std::map<std::string, std::string> files_under(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) out[e.path().lexically_relative(root).generic_string()] = read_bytes(e.path());
  return out;
}

std::int64_t rows(Archive& a, const std::string& table) {
  return a.db().query_int("SELECT count(*) FROM " + table);
}

// A small set in the shared set's layout, with formatting a re-serialisation would lose:
// hand-aligned JSON, spaces after colons, a CRLF line, a safetensors input.
void write_small_set(const TempDir& dir) {
  dir.write("set/definitions/synthetic/synthetic_copy.json", test::kSyntheticDefinition);
  dir.write("set/definitions/other/lonely.json",
            "{\"name\":\"lonely\",\"op_type\":\"other\",\"axes\":{},\"inputs\":{},\"outputs\":{},"
            "\"reference\":\"x\"}");  // no final newline
  dir.write("set/solutions/candidate-x.json", test::synthetic_solution("candidate-x"));
  const std::string w0 = R"({"definition": "synthetic_copy", "solution": null, "workload": {"uuid": "w-0", )"
                         R"("axes": {"N": 1}, "inputs": {"x": {"type": "random"}}}, "evaluation": null})";
  const std::string w1 =
      R"({"definition":"synthetic_copy","solution":null,"workload":{"uuid":"w-1","axes":{"N":2},)"
      R"("inputs":{"x":{"type":"safetensors","path":"./blob/workloads/w1.safetensors",)"
      R"("tensor_key":"x"}}},"evaluation":null})";
  dir.write("set/workloads/synthetic/synthetic_copy.jsonl", w0 + "\n" + w1 + "\r\n");
  dir.write("set/blob/workloads/w1.safetensors", std::string("\x08\0\0\0\0\0\0\0{}      ", 16));
  dir.write("set/traces/synthetic/synthetic_copy.jsonl", test::synthetic_trace("candidate-x", 0, 0.5) + "\n" +
                                                             test::synthetic_trace("candidate-x", 1, 1.0) +
                                                             "\n");
}

TEST(ImportExport, RoundTripReproducesEveryFileByteForByte) {
  TempDir dir;
  write_small_set(dir);
  Archive a = Archive::open_or_create(dir / "archive");
  const ImportReport r = import_trace_set(a, dir / "set");
  EXPECT_TRUE(r.problems.empty()) << format_diagnostic(r.problems.front());
  EXPECT_EQ(r.definitions.added, 2);
  EXPECT_EQ(r.solutions.added, 1);
  EXPECT_EQ(r.workloads.added, 2);
  EXPECT_EQ(r.traces.added, 2);
  EXPECT_EQ(r.input_files.added, 1);
  ASSERT_TRUE(r.import_id);
  const ExportReport e = export_trace_set(a, dir / "out");
  EXPECT_EQ(e.files, 6);
  const auto before = files_under(dir / "set");
  const auto after = files_under(dir / "out");
  ASSERT_EQ(before.size(), after.size());
  for (const auto& [path, bytes] : before) {
    ASSERT_TRUE(after.count(path)) << path << " was not exported";
    EXPECT_EQ(after.at(path), bytes) << path << " differs";
  }
  EXPECT_TRUE(check_archive(a, true).ok());
}

TEST(ImportExport, ImportingTwiceAddsNothing) {
  TempDir dir;
  write_small_set(dir);
  Archive a = Archive::open_or_create(dir / "archive");
  (void)import_trace_set(a, dir / "set");
  std::map<std::string, std::int64_t> counts;
  for (const char* t : {"definitions", "workloads", "workload_files", "solutions", "traces", "blobs",
                        "environments", "imports"})
    counts[t] = rows(a, t);
  const ImportReport again = import_trace_set(a, dir / "set");
  EXPECT_EQ(again.added(), 0);
  EXPECT_EQ(again.traces.read, 2);
  EXPECT_FALSE(again.import_id) << "an import that added nothing leaves no imports row";
  for (const auto& [table, n] : counts) EXPECT_EQ(rows(a, table), n) << table;
}

TEST(ImportExport, ImportedTracesKeepTheirFactsAndSolution) {
  TempDir dir;
  write_small_set(dir);
  Archive a = Archive::open_or_create(dir / "archive");
  (void)import_trace_set(a, dir / "set");
  Statement s = a.db().prepare(
      "SELECT t.latency_ms, t.speedup, t.sol_fraction, s.name, t.source_path, t.source_line, e.hardware "
      "FROM traces t JOIN solutions s ON s.id = t.solution_id JOIN environments e ON e.id = t.environment_id "
      "ORDER BY t.id DESC");
  ASSERT_TRUE(s.step());
  EXPECT_DOUBLE_EQ(s.column_double(0), 1.0);
  EXPECT_DOUBLE_EQ(s.column_double(1), 2.0);
  EXPECT_DOUBLE_EQ(s.column_double(2), 0.25);
  EXPECT_EQ(s.column_text(3), "candidate-x");
  EXPECT_EQ(s.column_text(4), "traces/synthetic/synthetic_copy.jsonl");
  EXPECT_EQ(s.column_int(5), 2);
  EXPECT_EQ(s.column_text(6), "test-cpu");
}

TEST(ImportExport, BadDocumentsAreReportedWithTheirPlaceAndTheRestIsImported) {
  TempDir dir;
  write_small_set(dir);
  dir.write("set/traces/broken.jsonl",
            test::synthetic_trace("candidate-x", 5, 3.0) + "\n{not json\n" +
                R"({"definition":"synthetic_copy","workload":{"uuid":"q","axes":{},)"
                R"("inputs":{}},"solution":"s","evaluation":{"status":"FINE"}})" +
                "\n");
  dir.write("set/definitions/bad.json", "{\"name\": 3}");
  Archive a = Archive::open_or_create(dir / "archive");
  const ImportReport r = import_trace_set(a, dir / "set");
  ASSERT_EQ(count_errors(r.problems), 3u);
  std::string all;
  for (const Diagnostic& d : r.problems) all += format_diagnostic(d) + "\n";
  EXPECT_NE(all.find("broken.jsonl:2"), std::string::npos) << all;
  EXPECT_NE(all.find("broken.jsonl:3"), std::string::npos) << all;
  EXPECT_NE(all.find("FINE"), std::string::npos) << all;
  EXPECT_NE(all.find("bad.json"), std::string::npos) << all;
  EXPECT_EQ(r.traces.added, 3) << "the good line of the broken file too";
  EXPECT_EQ(r.definitions.added, 2);
}

TEST(ImportExport, AMissingSafetensorsFileIsAWarningNotAnError) {
  TempDir dir;
  write_small_set(dir);
  fs::remove(dir / "set/blob/workloads/w1.safetensors");
  Archive a = Archive::open_or_create(dir / "archive");
  const ImportReport r = import_trace_set(a, dir / "set");
  EXPECT_EQ(count_errors(r.problems), 0u);
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].message.find("w1.safetensors"), std::string::npos);
  EXPECT_EQ(r.workloads.added, 2);
}

TEST(ImportExport, ExportOfOneDefinitionHoldsOnlyWhatBelongsToIt) {
  TempDir dir;
  write_small_set(dir);
  Archive a = Archive::open_or_create(dir / "archive");
  (void)import_trace_set(a, dir / "set");
  const ExportReport e = export_trace_set(a, dir / "out", ExportOptions{"lonely"});
  EXPECT_EQ(e.definitions, 1);
  EXPECT_EQ(e.traces, 0);
  EXPECT_EQ(files_under(dir / "out").size(), 1u);
  EXPECT_THROW((void)export_trace_set(a, dir / "out2", ExportOptions{"nope"}), Error);
  try {
    (void)export_trace_set(a, dir / "out");
    FAIL() << "exported into a folder that is not empty";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("not empty"), std::string::npos) << err.what();
  }
}

TEST(ImportExport, RecordedRunsComeOutInTheUpstreamLayoutAfterImportedLines) {
  TempDir dir;
  write_small_set(dir);
  Archive a = Archive::open_or_create(dir / "archive");
  (void)import_trace_set(a, dir / "set");
  write_run(a, test::synthetic_run("new", 2));
  (void)export_trace_set(a, dir / "out");
  const auto out = files_under(dir / "out");
  ASSERT_TRUE(out.count("solutions/synthetic/synthetic_copy/candidate-new.json"));
  EXPECT_FALSE(out.count("solutions/synthetic/synthetic_copy/reference.json")) << "references stay in";
  const std::string traces = out.at("traces/synthetic/synthetic_copy.jsonl");
  const std::string imported = read_bytes(dir / "set/traces/synthetic/synthetic_copy.jsonl");
  EXPECT_EQ(traces.substr(0, imported.size()), imported) << "imported lines first, in order";
  EXPECT_NE(traces.find("candidate-new", imported.size()), std::string::npos);

  // The exported set is a set: it imports into a fresh archive with everything.
  Archive b = Archive::open_or_create(dir / "archive2");
  const ImportReport r = import_trace_set(b, dir / "out");
  EXPECT_EQ(count_errors(r.problems), 0u);
  EXPECT_EQ(r.traces.added, 4);
  EXPECT_EQ(r.solutions.added, 2);
}

TEST(ImportExport, TheSharedTraceSetRoundTrips) {
  const fs::path shared = fs::path(KHARNESS_SHARED_DIR) / "flashinfer-trace";
  if (!fs::is_directory(shared)) GTEST_SKIP() << shared << " is absent";
  TempDir dir;
  Archive a = Archive::open_or_create(dir / "archive");
  const ImportReport r = import_trace_set(a, shared);
  EXPECT_EQ(count_errors(r.problems), 0u);
  EXPECT_GT(r.definitions.added, 0);
  EXPECT_GT(r.workloads.added, 0);
  (void)export_trace_set(a, dir / "out");
  const auto before = files_under(shared);
  const auto after = files_under(dir / "out");
  std::size_t compared = 0;
  for (const auto& [path, bytes] : before) {
    const bool imported = path.rfind("definitions/", 0) == 0 || path.rfind("solutions/", 0) == 0 ||
                          path.rfind("workloads/", 0) == 0 || path.rfind("traces/", 0) == 0;
    if (!imported) continue;  // e.g. a README beside the folders
    ASSERT_TRUE(after.count(path)) << path;
    EXPECT_EQ(after.at(path), bytes) << path;
    ++compared;
  }
  EXPECT_EQ(compared, after.size()) << "export wrote files the set does not have";
  EXPECT_EQ(import_trace_set(a, shared).added(), 0);
}

}  // namespace
}  // namespace kh::archive
