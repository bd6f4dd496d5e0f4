#include "eval/reference_latency_cache.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "base/sha256.h"
#include "timing/sample_statistics.h"

namespace kh {

namespace {

using json = nlohmann::ordered_json;

constexpr int kFormat = 1;
constexpr double kClockDrift = 0.10;  // a candidate clock this far from the entry's makes it stale

std::int64_t now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

json to_json(const LatencyMeasurement& m) {
  return {{"timer", m.timer},
          {"timer_note", m.timer_note},
          {"latency_ms", m.latency_ms},
          {"trial_medians_ms", m.trial_medians_ms},
          {"samples_ms", m.samples_ms},
          {"throttled", m.throttled},
          {"mean_sm_clock_mhz", m.mean_sm_clock_mhz},
          {"stop_reason", m.stop_reason},
          {"set_seeds", m.set_seeds},
          {"request_wall_ms", m.request_wall_ms},
          {"phases_ms", m.phases_ms}};
}

LatencyMeasurement from_json(const json& j) {
  LatencyMeasurement m;
  m.timer = j.at("timer").get<std::string>();
  m.timer_note = j.at("timer_note").get<std::string>();
  m.latency_ms = j.at("latency_ms").get<double>();
  m.trial_medians_ms = j.at("trial_medians_ms").get<std::vector<double>>();
  m.samples_ms = j.at("samples_ms").get<std::vector<std::vector<double>>>();
  m.throttled = j.at("throttled").get<std::size_t>();
  m.mean_sm_clock_mhz = j.at("mean_sm_clock_mhz").get<double>();
  m.stop_reason = j.at("stop_reason").get<std::string>();
  m.set_seeds = j.at("set_seeds").get<std::vector<std::vector<std::uint64_t>>>();
  m.request_wall_ms = j.at("request_wall_ms").get<double>();
  m.phases_ms = j.at("phases_ms");
  std::vector<double> pool;
  for (const auto& trial : m.samples_ms) pool.insert(pool.end(), trial.begin(), trial.end());
  m.stats = summarize(pool);
  return m;
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
    LatencyMeasurement m = from_json(entry.at("measurement"));
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
  }
}

void ReferenceLatencyCache::store(const std::string& key, const json& parts,
                                  const LatencyMeasurement& m) const {
  const json entry = {
      {"format", kFormat}, {"measured_at_s", now_s()}, {"key", parts}, {"measurement", to_json(m)}};
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
