// Keys stay out of what kharness keeps, in every spelling an agent might use: each form
// is planted first (it would survive a plain search), then shown redacted, in redact()
// and end to end through a cli agent that leaks its key to stdout and into its workspace.
#include "agents/redaction.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "agents/cli_agent.h"
#include "answer_fixture.h"
#include "support/temp_dir.h"

namespace kh::agents {
namespace {

namespace fs = std::filesystem;
const std::string kKey = "sk-SENTINEL-leak-0123456789abcdefXYZ";

std::string base64(std::string_view s, bool url_safe = false) {
  const char* a = url_safe ? "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
                           : "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < s.size(); i += 3) {
    std::uint32_t v = 0;
    const std::size_t n = std::min<std::size_t>(3, s.size() - i);
    for (std::size_t k = 0; k < 3; ++k) v = (v << 8) | (k < n ? static_cast<unsigned char>(s[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? a[(v >> (18 - 6 * k)) & 63] : '=';
  }
  return out;
}

std::string url_encoded(std::string_view s, bool upper) {
  std::string out;
  for (unsigned char c : s) {
    char buf[4];
    std::snprintf(buf, sizeof buf, upper ? "%%%02X" : "%%%02x", c);
    out += buf;
  }
  return out;
}

std::string hex(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    char buf[3];
    std::snprintf(buf, sizeof buf, "%02x", c);
    out += buf;
  }
  return out;
}

// Every disguise of the key the tests plant, with a name for the failure message.
std::vector<std::pair<std::string, std::string>> disguises() {
  const std::string a = kKey.substr(0, kKey.size() / 2), b = kKey.substr(kKey.size() / 2);
  return {{"plain", kKey},
          {"base64", base64(kKey)},
          {"base64 at offset 1", base64("x" + kKey)},
          {"base64 at offset 2", base64("xy" + kKey)},
          {"base64url", base64("z" + kKey, true)},
          {"base64 in a longer text", base64("Authorization: Bearer " + kKey + "\n")},
          {"URL-encoded", url_encoded(kKey, false)},
          {"URL-encoded, upper", url_encoded(kKey, true)},
          {"partly URL-encoded", "sk%2DSENTINEL%2Dleak-0123456789abcdefXYZ"},
          {"hex", hex(kKey)},
          {"split by a space", a + " " + b},
          {"split across lines", a + "\n" + b},
          {"split as two strings", "\"" + a + "\" + \"" + b + "\""},
          {"split by an escaped newline", a + "\\n" + b}};
}

// The key's parts an unredacted form would leave: the whole key, its halves' joints.
bool leaks(const std::string& text, const std::string& form) { return text.find(form) != std::string::npos; }

TEST(Redaction, EveryDisguiseIsRedacted) {
  for (const auto& [name, form] : disguises()) {
    const std::string text = "before " + form + " after";
    ASSERT_TRUE(leaks(text, form));  // planted
    const std::string clean = redact(text, {kKey});
    EXPECT_FALSE(leaks(clean, form)) << name << ": " << clean;
    EXPECT_NE(clean.find(std::string(kRedacted)), std::string::npos) << name << ": " << clean;
    EXPECT_EQ(clean.rfind("before ", 0), 0u) << name << ": the text around it is kept: " << clean;
  }
}

TEST(Redaction, OrdinaryTextIsLeftAlone) {
  const std::string text = "def run(x, w): return x * rsqrt(mean(x ** 2) + 1e-5) * w  # sk- prefix alone";
  EXPECT_EQ(redact(text, {kKey}), text);
  EXPECT_EQ(redact("a short key abcd appears", {"abcd"}), "a short key [REDACTED] appears");
  EXPECT_EQ(redact("a b c d", {"abcd"}), "a b c d") << "short keys are matched exactly only";
}

TEST(Redaction, ACliAgentsLeaksAreRedactedInItsTranscriptAndWorkspace) {
  ::setenv("OPENAI_API_KEY", kKey.c_str(), 1);
  kh::test::TempDir dir;
  CliAgent agent(read_cli_agent_config(
      {{"command", std::string(KHARNESS_SOURCE_DIR) + "/tests/agents/scripts/leak_key.sh"}}));
  const Proposal p = agent.propose(test::rmsnorm_request(dir.path()));
  ::unsetenv("OPENAI_API_KEY");
  std::string kept = p.transcript;
  for (const RejectedAnswer& r : p.rejected) kept += r.reason + r.excerpt;
  ASSERT_NE(p.transcript.find("b64 shifted"), std::string::npos)
      << "the script did not run: " << p.transcript;
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir.path())) {
    EXPECT_FALSE(e.is_symlink()) << e.path() << ": a link out of the workspace was kept";
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    kept += std::string((std::istreambuf_iterator<char>(in)), {});
    ++files;
  }
  EXPECT_GE(files, 3u);
  const std::string a = kKey.substr(0, kKey.size() / 2), b = kKey.substr(kKey.size() / 2);
  for (const auto& [name, form] :
       std::vector<std::pair<std::string, std::string>>{{"plain", kKey},
                                                        {"base64", base64(kKey)},
                                                        {"base64 shifted", base64("xx" + kKey).substr(4, 40)},
                                                        {"URL-encoded", url_encoded(kKey, false)},
                                                        {"first half", a},
                                                        {"second half", b}}) {
    EXPECT_FALSE(leaks(kept, form)) << name << " survived";
  }
}

}  // namespace
}  // namespace kh::agents
