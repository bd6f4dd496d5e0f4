// The dashboard's handlers on a real archive (the toy set imported, plus a child
// candidate written as an eval run with lineage, a build log and a controller
// decision): every page type, 404s, and, through a real server on a loopback port,
// that it answers GET and refuses every writing method.
#include <gtest/gtest.h>

#include <thread>

#include "archive/controller_log.h"
#include "archive/run_writer.h"
#include "report/archive_reader.h"
#include "report/dashboard/dashboard.h"
#include "report/dashboard/server.h"
#include "report_fixtures.h"

#ifdef KHARNESS_WITH_HTTPLIB
#include <httplib.h>
#endif

namespace kh::report {
namespace {

using dashboard::Dashboard;
using dashboard::HttpResponse;
using test::json;

std::string content_id_of(const ArchiveReader& r, const std::string& name) {
  for (const SolutionEntry& s : r.solutions(test::kToy, 0, 100)) {
    if (s.name == name) return s.content_id;
  }
  return "";
}

// toy_fast_v2: a child of toy_fast, three times faster than the baseline.
archive::RunRecord child_run(const std::string& parent) {
  archive::RunRecord r;
  r.definition_json = test::toy_definition().dump(2);
  r.candidate.json_text =
      test::toy_solution("toy_fast_v2",
                         "__global__ void run() {\n  // vectorised, unrolled\n  float4 v;\n}\n")
          .dump(2);
  r.candidate.lineage = {
      parent, "tuner", "unroll the inner loop", "unrolling", std::string("the prompt"), std::nullopt};
  r.build =
      archive::BuildRecord{"k2", "ok", "", "nvcc: 0 warnings (build log marker)", {}, 1.5, false, "nvcc 13"};
  r.environment = {{"hardware", "NVIDIA H200"}, {"libs", json::object()}};
  r.backend = "cuda";
  r.protocol = "official";
  r.protocol_json = {{"name", "official"}};
  r.options_json = {{"backend", "cuda"}};
  r.tolerance_json = {{"atol", 0.01}};
  r.command_line = {"kharness", "eval"};
  r.started_at = "2026-01-04T00:00:00.000Z";
  r.finished_at = "2026-01-04T00:00:01.000Z";
  for (int i = 0; i < test::kToyWorkloads; ++i) {
    r.workloads.push_back({json{{"definition", test::kToy},
                                {"solution", nullptr},
                                {"workload", test::toy_workload(i)},
                                {"evaluation", nullptr}}
                               .dump(),
                           {}});
    r.traces.push_back({test::toy_trace("toy_fast_v2", i, true, 0.001 * (1 << i) / 3, 4), {}, {}});
  }
  return r;
}

class DashboardTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir();
    ASSERT_EQ(test::import_toy_set(dir_->path()), 0u);
    archive::Archive a = archive::Archive::open_existing(dir_->path());
    const ArchiveReader reader = ArchiveReader::open(dir_->path());
    const std::string fast = content_id_of(reader, "toy_fast");
    const archive::WrittenRun w = archive::write_run(a, child_run(fast));
    child_id_ = w.solution_id;
    archive::Decision d;
    d.loop_id = "loop-1";
    d.round = 1;
    d.kind = archive::DecisionKind::promote;
    d.solution = w.solution_content_id;
    d.baseline = fast;
    d.started_at = "2026-01-04T00:00:00Z";
    d.evidence = {{"reason", "faster"}, {"speedup", {{"over_baseline", 3.25}, {"protocol", "robust"}}}};
    archive::record_decision(a, d);
    // Round 2 found nothing better: archive_only names no candidate, only the best it kept.
    archive::Decision kept;
    kept.loop_id = "loop-1";
    kept.round = 2;
    kept.kind = archive::DecisionKind::archive_only;
    kept.baseline = w.solution_content_id;
    kept.evidence = {{"reason", "no candidate passed every workload faster than the retained best"}};
    kept.started_at = "2026-01-05T00:00:00Z";
    archive::record_decision(a, kept);
  }
  static void TearDownTestSuite() { delete dir_; }

  static test::TempDir* dir_;
  static RowId child_id_;
};

test::TempDir* DashboardTest::dir_ = nullptr;
RowId DashboardTest::child_id_ = 0;

bool has(const HttpResponse& r, const std::string& text) { return r.body.find(text) != std::string::npos; }

std::size_t count(const std::string& body, const std::string& text) {
  std::size_t n = 0;
  for (std::size_t at = body.find(text); at != std::string::npos; at = body.find(text, at + 1)) ++n;
  return n;
}

TEST_F(DashboardTest, IndexListsDefinitions) {
  Dashboard d(dir_->path());
  const HttpResponse r = d.get("/", {});
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(has(r, "href=\"/definition/toy_scale\"")) << r.body;
  EXPECT_TRUE(has(r, "<td>4</td><td>4</td><td>16</td>")) << "4 workloads, 4 solutions, 16 traces";
}

TEST_F(DashboardTest, DefinitionPageRanksAndPlots) {
  Dashboard d(dir_->path());
  const HttpResponse r = d.get("/definition/toy_scale", {});
  ASSERT_EQ(r.status, 200);
  const std::size_t v2 = r.body.find("toy_fast_v2"), fast = r.body.find(">toy_fast<"),
                    broken = r.body.find(">toy_broken<");
  ASSERT_NE(v2, std::string::npos);
  EXPECT_LT(v2, fast) << "3x beats 2x";
  EXPECT_LT(fast, broken) << "a failed workload scores 0";
  EXPECT_TRUE(has(r, "<td>3.000</td>")) << "toy_fast_v2: mean speedup 3 over the baseline";
  EXPECT_TRUE(has(r, "baseline: toy_scale_baseline_cuda"));
  EXPECT_EQ(count(r.body, "<svg "), 5u);
  EXPECT_TRUE(has(r, "id=\"plot-roofline\""));
  EXPECT_TRUE(has(r, "class=\"roof\""));
}

TEST_F(DashboardTest, CandidatePageShowsSourcesDiffBuildTracesLineage) {
  Dashboard d(dir_->path());
  const HttpResponse r = d.get("/candidate/" + std::to_string(child_id_), {});
  ASSERT_EQ(r.status, 200);
  EXPECT_TRUE(has(r, "Diff against parent toy_fast"));
  EXPECT_TRUE(has(r, "<div class=\"del\">-  // vectorised</div>")) << r.body;
  EXPECT_TRUE(has(r, "<div class=\"add\">+  // vectorised, unrolled</div>"));
  EXPECT_TRUE(has(r, "build log marker"));
  EXPECT_TRUE(has(r, "unroll the inner loop"));
  EXPECT_TRUE(has(r, "class=\"badge promote\""));
  EXPECT_EQ(count(r.body, "status-PASSED"), 4u) << "one row per trace";
  EXPECT_TRUE(has(r, "class=\"lineage\"><a href=\"/candidate/"));
}

TEST_F(DashboardTest, HistoryIsATreeWithDecisions) {
  Dashboard d(dir_->path());
  const HttpResponse r = d.get("/definition/toy_scale/history", {});
  ASSERT_EQ(r.status, 200);
  const std::size_t parent = r.body.find(">toy_fast<");
  const std::size_t nested = r.body.find("<ul class=\"tree\">", parent);
  const std::size_t child = r.body.find(">toy_fast_v2<");
  ASSERT_NE(parent, std::string::npos);
  EXPECT_LT(parent, nested);
  EXPECT_LT(nested, child) << "the child is nested under its parent";
  EXPECT_TRUE(has(r, "round 1: promote · 3.250x over the loop&#39;s baseline")) << r.body;
  EXPECT_TRUE(has(r, "round 2: archive_only (kept)")) << "a round that promoted nothing is shown too";
  EXPECT_TRUE(has(r, "2 decisions")) << r.body;
  EXPECT_TRUE(has(r, "<table class=\"decisions\">")) << r.body;
}

TEST_F(DashboardTest, PlotAssetAndBlobRoutes) {
  Dashboard d(dir_->path());
  const HttpResponse svg = d.get("/definition/toy_scale/plot/fast_p.svg", {});
  EXPECT_EQ(svg.status, 200);
  EXPECT_EQ(svg.content_type, "image/svg+xml");
  EXPECT_TRUE(svg.body.starts_with("<svg "));
  EXPECT_EQ(d.get("/assets/style.css", {}).content_type, "text/css; charset=utf-8");
  const auto child = ArchiveReader::open(dir_->path()).solution(child_id_);
  ASSERT_TRUE(child && child->prompt_blob);
  EXPECT_EQ(d.get("/blob/" + *child->prompt_blob, {}).body, "the prompt");
}

TEST_F(DashboardTest, ClearNotFoundsAndBadRequests) {
  Dashboard d(dir_->path());
  for (const char* path :
       {"/nope", "/candidate/99999", "/candidate/abc", "/definition/nope",
        "/definition/toy_scale/plot/nope.svg", "/definition/toy_scale/x", "/assets/x.js", "/blob/zz",
        "/blob/0000000000000000000000000000000000000000000000000000000000000000"}) {
    const HttpResponse r = d.get(path, {});
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_TRUE(has(r, "Not found")) << path;
  }
  EXPECT_TRUE(has(d.get("/definition/nope", {}), "no definition named &#39;nope&#39;"));
  EXPECT_EQ(d.get("/definition/toy_scale", {{"page", "x"}}).status, 400);
  EXPECT_EQ(d.get("/definition/toy_scale", {{"page", "3"}}).status, 200) << "an empty page is still a page";
}

TEST_F(DashboardTest, NotAnArchiveIsAClearError) {
  test::TempDir empty;
  try {
    Dashboard d(empty.path());
    FAIL() << "opened an empty folder";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not an archive"), std::string::npos) << e.what();
  }
}

#ifdef KHARNESS_WITH_HTTPLIB
TEST_F(DashboardTest, ServerAnswersGetAndRefusesWrites) {
  Dashboard d(dir_->path());
  dashboard::Server server(d);
  const int port = server.bind("127.0.0.1", 0);
  ASSERT_GT(port, 0);
  std::thread serving([&] { server.listen(); });
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(5);
  auto index = client.Get("/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_NE(index->body.find("toy_scale"), std::string::npos);
  auto missing = client.Get("/candidate/424242");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  auto page = client.Get("/definition/toy_scale?page=0");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  auto post = client.Post("/", "x=1", "application/x-www-form-urlencoded");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
  auto del = client.Delete("/candidate/1");
  ASSERT_TRUE(del);
  EXPECT_EQ(del->status, 405);
  auto put = client.Put("/definition/toy_scale", "{}", "application/json");
  ASSERT_TRUE(put);
  EXPECT_EQ(put->status, 405);
  server.stop();
  serving.join();
  // The archive is as it was: the dashboard never wrote to it.
  EXPECT_EQ(ArchiveReader::open(dir_->path()).trace_version(test::kToy).first, 16);
}
#endif

}  // namespace
}  // namespace kh::report
