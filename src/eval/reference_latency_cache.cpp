#include "eval/reference_latency_cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "base/sha256.h"
#include "error/error.h"
#include "eval/evaluation_json.h"
#include "timing/sample_statistics.h"

namespace kh {

namespace {

using json = nlohmann::ordered_json;

constexpr int kFormat = 2;            // 2: the measurement in evaluation_json's form
constexpr double kClockDrift = 0.10;  // a candidate clock this far from the entry's makes it stale

std::int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string utc_text(std::int64_t seconds) {
  const auto t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

ReferenceLatencyCache::ReferenceLatencyCache(const std::filesystem::path& dir, std::chrono::seconds max_age)
    : dir_(dir / "reference-latency"), max_age_(max_age) {}

std::string ReferenceLatencyCache::key(const json& parts) { return sha256_hex(parts.dump()); }

std::filesystem::path ReferenceLatencyCache::path_of(const std::string& key) const {
  return dir_ / (key + ".json");
}

std::optional<LatencyMeasurement> ReferenceLatencyCache::find(const std::string& key,
                                                              double candidate_clock_mhz) const {
  std::ifstream in(path_of(key));
  if (!in) return std::nullopt;
  try {
    const json entry = json::parse(in);
    if (entry.at("format").get<int>() != kFormat) return std::nullopt;
    const std::int64_t measured_at = entry.at("measured_at_s").get<std::int64_t>();
    if (now_s() - measured_at > max_age_.count()) return std::nullopt;
    LatencyMeasurement m = latency_from_json(entry.at("measurement"), "measurement");
    // The statistics are recomputed from the samples, not taken from the file.
    std::vector<double> pool;
    for (const auto& trial : m.samples_ms) pool.insert(pool.end(), trial.begin(), trial.end());
    m.stats = summarize(pool);
    if (candidate_clock_mhz > 0 && m.mean_sm_clock_mhz > 0 &&
        std::fabs(candidate_clock_mhz - m.mean_sm_clock_mhz) > kClockDrift * m.mean_sm_clock_mhz) {
      return std::nullopt;
    }
    m.source = "cache";
    m.cache_key = key;
    m.measured_at = utc_text(measured_at);
    return m;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a damaged entry is measured again and overwritten
  } catch (const Error&) {
    return std::nullopt;  // likewise: a field missing or mistyped
  }
}

void ReferenceLatencyCache::store(const std::string& key, const json& parts,
                                  const LatencyMeasurement& m) const {
  const json entry = {
      {"format", kFormat}, {"measured_at_s", now_s()}, {"key", parts}, {"measurement", latency_to_json(m)}};
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  const std::filesystem::path target = path_of(key);
  const std::filesystem::path temp = target.string() + fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(temp);
    out << entry.dump(1);
    if (!out) {
      fmt::print(stderr, "note: cannot write the reference-latency cache entry {}\n", temp.string());
      return;
    }
  }
  std::filesystem::rename(temp, target, ec);
  if (ec)
    fmt::print(stderr, "note: cannot store the reference-latency cache entry {}: {}\n", target.string(),
               ec.message());
}

}  // namespace kh
