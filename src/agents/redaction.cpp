#include "agents/redaction.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>

namespace kh::agents {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMinSecretChars = 4;
constexpr std::size_t kMinDisguisedChars = 8;  // shorter ones would match ordinary text
constexpr std::size_t kMostSeparators = 16;    // between two characters of a split secret

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Length of the separator at `i` (whitespace, a quote, comma or plus sign, or an escaped
// \n \r \t as printed inside a JSON or C string), or 0.
std::size_t separator_at(std::string_view t, std::size_t i) {
  static constexpr std::string_view kSeparators = " \t\r\n\"'`,+";
  if (kSeparators.find(t[i]) != std::string_view::npos) return 1;
  if (t[i] == '\\' && i + 1 < t.size() && (t[i + 1] == 'n' || t[i + 1] == 'r' || t[i + 1] == 't')) return 2;
  return 0;
}

// Length of `c` at `i`: the character itself, or %XX (URL-encoded), else 0.
std::size_t char_at(std::string_view t, std::size_t i, char c) {
  if (t[i] == c) return 1;
  if (t[i] == '%' && i + 2 < t.size()) {
    const int hi = hex_value(t[i + 1]), lo = hex_value(t[i + 2]);
    if (hi >= 0 && lo >= 0 && static_cast<char>(hi * 16 + lo) == c) return 3;
  }
  return 0;
}

// Where a disguised `pattern` that starts at `i` ends, or npos.
std::size_t match_end(std::string_view t, std::size_t i, std::string_view pattern, bool split) {
  for (std::size_t k = 0; k < pattern.size(); ++k) {
    if (i >= t.size()) return std::string_view::npos;
    std::size_t n = char_at(t, i, pattern[k]);
    for (std::size_t skipped = 0; n == 0 && split && k > 0 && skipped < kMostSeparators && i < t.size();
         ++skipped) {
      const std::size_t sep = separator_at(t, i);
      if (sep == 0) break;
      i += sep;
      if (i < t.size()) n = char_at(t, i, pattern[k]);
    }
    if (n == 0) return std::string_view::npos;
    i += n;
  }
  return i;
}

std::string hex(std::string_view s, const char* digits) {
  std::string out;
  for (unsigned char c : s) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// The base64 characters that depend on the secret's bytes alone when it starts `shift`
// bytes into a 3-byte group: what any encoding of a text holding it must contain.
std::string base64_core(std::string_view s, std::size_t shift, const char* alphabet) {
  std::string bytes(shift, '\0');
  bytes.append(s);
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 3; ++k)
      v = (v << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out += alphabet[(v >> (18 - 6 * k)) & 63];
  }
  // Characters covering a padding bit at the front, or bits after the secret, vary.
  const std::size_t first = (8 * shift + 5) / 6;
  const std::size_t last = 8 * (shift + s.size()) / 6;
  return last > first ? out.substr(first, last - first) : std::string();
}

// Every spelling of one secret that redact() looks for.
std::vector<std::string> spellings(const std::string& secret) {
  std::vector<std::string> out = {secret};
  if (secret.size() < kMinDisguisedChars) return out;
  out.push_back(hex(secret, "0123456789abcdef"));
  out.push_back(hex(secret, "0123456789ABCDEF"));
  static constexpr const char* kStandard = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  static constexpr const char* kUrlSafe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (std::size_t shift = 0; shift < 3; ++shift) {
    for (const char* alphabet : {kStandard, kUrlSafe}) {
      std::string core = base64_core(secret, shift, alphabet);
      if (core.size() >= kMinDisguisedChars) out.push_back(std::move(core));
    }
  }
  return out;
}

std::string redact_spelling(std::string text, std::string_view pattern, bool split) {
  std::string out;
  std::size_t copied = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t end = match_end(text, i, pattern, split);
    if (end == std::string_view::npos) {
      ++i;
      continue;
    }
    out.append(text, copied, i - copied);
    out += kRedacted;
    copied = i = end;
  }
  if (copied == 0) return text;
  out.append(text, copied, std::string::npos);
  return out;
}

}  // namespace

std::vector<std::string> secret_values(const std::vector<std::string>& env_names) {
  std::vector<std::string> out;
  for (const auto& name : env_names) {
    const char* v = std::getenv(name.c_str());
    if (v != nullptr && *v != '\0') out.emplace_back(v);
  }
  return out;
}

std::string redact(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& s : secrets) {
    if (s.size() < kMinSecretChars) continue;
    const bool disguised = s.size() >= kMinDisguisedChars;
    for (const std::string& spelling : spellings(s))
      text = redact_spelling(std::move(text), spelling, disguised);
  }
  return text;
}

void redact_proposal(Proposal& p, const std::vector<std::string>& secrets) {
  p.transcript = redact(std::move(p.transcript), secrets);
  p.cost_note = redact(std::move(p.cost_note), secrets);
  for (RejectedAnswer& r : p.rejected) {
    r.reason = redact(std::move(r.reason), secrets);
    r.excerpt = redact(std::move(r.excerpt), secrets);
  }
  for (Candidate& c : p.candidates) {
    c.hypothesis = redact(std::move(c.hypothesis), secrets);
    c.solution.description = redact(std::move(c.solution.description), secrets);
    for (SourceFile& f : c.solution.sources) f.content = redact(std::move(f.content), secrets);
  }
}

std::size_t scrub_workspace(const fs::path& workspace, const std::vector<std::string>& secrets,
                            std::uintmax_t max_file_bytes) {
  std::size_t changed = 0;
  std::error_code ec;
  std::vector<fs::path> files, links;
  for (fs::recursive_directory_iterator it(workspace, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_symlink(type_ec))
      links.push_back(it->path());
    else if (it->is_regular_file(type_ec))
      files.push_back(it->path());
  }
  for (const fs::path& link : links) changed += fs::remove(link, ec) ? 1 : 0;
  std::mt19937_64 names(std::random_device{}());
  for (const fs::path& file : files) {
    const std::uintmax_t size = fs::file_size(file, ec);
    if (ec || size > max_file_bytes) {
      changed += fs::remove(file, ec) ? 1 : 0;
      continue;
    }
    std::ifstream in(file, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string clean = redact(text, secrets);
    if (clean == text) continue;
    const fs::path temp = file.parent_path() / (".kh-redact-" + std::to_string(names()));
    {
      std::ofstream out(temp, std::ios::binary | std::ios::trunc);
      out << clean;
    }
    fs::rename(temp, file, ec);
    if (ec) {  // not kept unredacted
      fs::remove(temp, ec);
      fs::remove(file, ec);
    }
    ++changed;
  }
  return changed;
}

std::string loggable_header(std::string_view name, std::string_view value) {
  constexpr std::array<std::string_view, 4> kSecretHeaders = {"authorization", "proxy-authorization",
                                                              "x-api-key", "api-key"};
  const bool secret = std::any_of(kSecretHeaders.begin(), kSecretHeaders.end(),
                                  [&](std::string_view h) { return iequals(h, name); });
  return std::string(name) + ": " + std::string(secret ? kRedacted : value);
}

}  // namespace kh::agents
