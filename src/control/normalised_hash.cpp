#include "control/normalised_hash.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

#include "base/sha256.h"

namespace kh::control {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool quote(char c) { return c == '"' || c == '\''; }
// Operator characters that, once adjacent, could read as one longer token ("- -" vs "--").
bool joining_operator(char c) {
  return std::string_view("+-*/%<>=&|^!:.#").find(c) != std::string_view::npos;
}

// Phase 2 of translation: a backslash-newline joins two lines, wherever it is.
std::string splice_lines(std::string_view code) {
  std::string out;
  out.reserve(code.size());
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (code[i] == '\r') continue;
    if (code[i] == '\\' && i + 1 < code.size() && (code[i + 1] == '\n' || code[i + 1] == '\r')) {
      i += code[i + 1] == '\r' && i + 2 < code.size() && code[i + 2] == '\n' ? 2 : 1;
      continue;
    }
    out += code[i];
  }
  return out;
}

bool raw_string_prefix(std::string_view word) {
  return word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR";
}

class Normaliser {
 public:
  explicit Normaliser(std::string code) : in_(std::move(code)) {}

  std::string run() {
    while (i_ < in_.size()) step();
    trim_trailing_space();
    return out_;
  }

 private:
  void step() {
    const char c = in_[i_];
    if (c == '\n') return newline();
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      separated_ = true;
      ++i_;
    } else if (c == '/' && peek(1) == '/') {
      while (i_ < in_.size() && in_[i_] != '\n') ++i_;
      separated_ = true;
    } else if (c == '/' && peek(1) == '*') {
      const std::size_t end = in_.find("*/", i_ + 2);
      i_ = end == std::string::npos ? in_.size() : end + 2;
      separated_ = true;
    } else if (quote(c)) {
      literal(c);
    } else if (word_char(c)) {
      word();
    } else {
      if (line_start_ && c == '#') directive_ = true;
      emit(c);
      ++i_;
    }
  }

  void newline() {
    ++i_;
    line_start_ = true;
    if (directive_) {
      trim_trailing_space();
      out_ += '\n';
      directive_ = false;
      separated_ = false;
    } else {
      separated_ = true;
    }
  }

  void word() {
    const std::size_t start = i_;
    while (i_ < in_.size() && word_char(in_[i_])) ++i_;
    const std::string_view w(in_.data() + start, i_ - start);
    emit_text(w);
    if (raw_string_prefix(w) && peek(0) == '"') raw_literal();
  }

  // A quoted literal, escapes included, byte for byte (to the line end if unterminated).
  void literal(char q) {
    const std::size_t start = i_++;
    while (i_ < in_.size() && in_[i_] != q && in_[i_] != '\n') i_ += in_[i_] == '\\' ? 2 : 1;
    i_ = std::min(i_ + 1, in_.size());
    emit_text(std::string_view(in_.data() + start, i_ - start));
  }

  // R"delim( ... )delim", after its prefix was emitted.
  void raw_literal() {
    const std::size_t open = in_.find('(', i_);
    if (open == std::string::npos) return literal('"');
    const std::string close = ")" + in_.substr(i_ + 1, open - i_ - 1) + "\"";
    const std::size_t end = in_.find(close, open);
    const std::size_t stop = end == std::string::npos ? in_.size() : end + close.size();
    out_.append(in_, i_, stop - i_);
    i_ = stop;
  }

  void emit_text(std::string_view text) {
    emit(text.front());
    out_.append(text.substr(1));
  }

  void emit(char c) {
    if (separated_ && !out_.empty() && out_.back() != '\n' && needs_space(out_.back(), c)) out_ += ' ';
    out_ += c;
    separated_ = false;
    line_start_ = false;
  }

  [[nodiscard]] bool needs_space(char before, char c) const {
    // In a directive spaces carry meaning ("#define F (x)" is not "#define F(x)"), but
    // not the one after the '#'.
    if (directive_) return !(before == '#' && out_.size() >= 1 && at_directive_hash());
    const bool wordish_before = word_char(before) || quote(before);
    const bool wordish_after = word_char(c) || quote(c);
    return (wordish_before && wordish_after) || (joining_operator(before) && joining_operator(c));
  }

  [[nodiscard]] bool at_directive_hash() const {
    return out_.size() == 1 || out_[out_.size() - 2] == '\n' || out_[out_.size() - 2] == ' ';
  }

  void trim_trailing_space() {
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
  }

  [[nodiscard]] char peek(std::size_t ahead) const {
    return i_ + ahead < in_.size() ? in_[i_ + ahead] : '\0';
  }

  std::string in_;
  std::string out_;
  std::size_t i_ = 0;
  bool separated_ = false;  // whitespace or a comment since the last character emitted
  bool line_start_ = true;
  bool directive_ = false;  // inside a preprocessor line
};

}  // namespace

std::string normalise_source(std::string_view code) { return Normaliser(splice_lines(code)).run(); }

std::string normalised_content_hash(const Solution& solution) {
  std::vector<std::pair<std::string, std::string>> files;
  files.reserve(solution.sources.size());
  for (const SourceFile& f : solution.sources) files.emplace_back(f.path, normalise_source(f.content));
  std::sort(files.begin(), files.end());
  Sha256 h;
  h.update_field(solution.spec.language).update_field(solution.spec.entry_point);
  for (const auto& [path, content] : files) h.update_field(path).update_field(content);
  return h.hex_digest();
}

}  // namespace kh::control
