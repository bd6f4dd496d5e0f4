// Validation of safetensors files. Every check here exists because a truncated, hand-edited
// or hostile file must produce a clear kh::Error, never an out-of-bounds read.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "error/error.h"
#include "tensor/safetensors.h"
#include "tensor/safetensors_dtype.h"

namespace kh {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::uint64_t kMaxHeaderBytes = 100ull * 1000 * 1000;

struct Span {
  std::uint64_t begin;
  std::uint64_t end;
  const std::string* name;
};

class Parser {
 public:
  Parser(std::span<const std::byte> buffer, std::string origin)
      : buffer_(buffer), origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw Error(Location{origin_, 0, field}, reason);
  }

  std::span<const std::byte> split_header() {
    if (buffer_.size() < 8) {
      fail("", fmt::format("file is {} bytes, shorter than the 8-byte header length", buffer_.size()));
    }
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
      n = (n << 8) | static_cast<std::uint8_t>(buffer_[static_cast<std::size_t>(i)]);
    if (n > kMaxHeaderBytes)
      fail("header", fmt::format("header length {} exceeds the {} byte limit", n, kMaxHeaderBytes));
    if (n > buffer_.size() - 8) {
      fail("header", fmt::format("header length {} overflows the file: only {} bytes follow the length field",
                                 n, buffer_.size() - 8));
    }
    data_ = buffer_.subspan(8 + n);
    return buffer_.subspan(8, n);
  }

  Json parse_json(std::span<const std::byte> header) const {
    const auto* first = reinterpret_cast<const char*>(header.data());
    Json j;
    try {
      j = Json::parse(first, first + header.size());
    } catch (const Json::exception& e) {
      fail("header", fmt::format("header is not valid JSON ({})", e.what()));
    }
    if (!j.is_object()) fail("header", "header is not a JSON object");
    return j;
  }

  std::map<std::string, std::string> read_metadata(const Json& m) const {
    if (!m.is_object()) fail("__metadata__", "must be an object of string to string");
    std::map<std::string, std::string> out;
    for (const auto& [key, value] : m.items()) {
      if (!value.is_string()) fail("__metadata__." + key, "metadata values must be strings");
      out[key] = value.get<std::string>();
    }
    return out;
  }

  std::uint64_t read_unsigned(const Json& v, const std::string& field, const char* what) const {
    if (!v.is_number_unsigned()) fail(field, fmt::format("{} must be non-negative integers", what));
    return v.get<std::uint64_t>();
  }

  SafetensorsEntry read_entry(const std::string& name, const Json& e, std::vector<Span>& spans,
                              const std::string& name_ref) const {
    if (!e.is_object()) fail(name, "tensor entry is not a JSON object");
    const DType dtype = read_dtype(name, e);
    const auto [shape, numel] = read_shape(name, e);
    if (!e.contains("data_offsets")) fail(name + ".data_offsets", "missing");
    const Json& off = e["data_offsets"];
    const std::string field = name + ".data_offsets";
    if (!off.is_array() || off.size() != 2) fail(field, "must be an array [begin, end]");
    const std::uint64_t begin = read_unsigned(off[0], field, "data_offsets");
    const std::uint64_t end = read_unsigned(off[1], field, "data_offsets");
    if (begin > end) fail(field, fmt::format("begin {} is after end {}", begin, end));
    if (end > data_.size()) {
      fail(field, fmt::format("end {} is past the data section of {} bytes", end, data_.size()));
    }
    const std::uint64_t need = bytes_for(dtype, numel, name);
    if (end - begin != need) {
      fail(field, fmt::format("range holds {} bytes but shape [{}] of {} needs {}", end - begin,
                              fmt::join(shape, ", "), dtype_name(dtype), need));
    }
    if (end > begin) spans.push_back(Span{begin, end, &name_ref});
    return SafetensorsEntry{dtype, shape, data_.subspan(begin, end - begin)};
  }

  void check_overlaps(std::vector<Span>& spans) const {
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
    for (std::size_t i = 1; i < spans.size(); ++i) {
      if (spans[i].begin < spans[i - 1].end) {
        fail(*spans[i].name + ".data_offsets",
             fmt::format("bytes [{}, {}) overlap tensor \"{}\" at [{}, {})", spans[i].begin, spans[i].end,
                         *spans[i - 1].name, spans[i - 1].begin, spans[i - 1].end));
      }
    }
  }

 private:
  DType read_dtype(const std::string& name, const Json& e) const {
    const std::string field = name + ".dtype";
    if (!e.contains("dtype")) fail(field, "missing");
    if (!e["dtype"].is_string()) fail(field, "must be a string");
    const auto& s = e["dtype"].get_ref<const std::string&>();
    if (auto d = detail::safetensors_dtype(s)) return *d;
    if (detail::safetensors_dtype_known_unsupported(s))
      fail(field, fmt::format("dtype \"{}\" is not supported", s));
    fail(field, fmt::format("unknown dtype \"{}\"", s));
  }

  std::pair<std::vector<std::int64_t>, std::uint64_t> read_shape(const std::string& name,
                                                                 const Json& e) const {
    const std::string field = name + ".shape";
    if (!e.contains("shape")) fail(field, "missing");
    const Json& s = e["shape"];
    if (!s.is_array()) fail(field, "must be an array of non-negative integers");
    std::vector<std::int64_t> shape;
    std::uint64_t numel = 1;
    for (const Json& d : s) {
      const std::uint64_t dim = read_unsigned(d, field, "shape entries");
      if (dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        fail(field, "dimension too large");
      if (__builtin_mul_overflow(numel, dim, &numel)) fail(field, "element count overflows 64 bits");
      shape.push_back(static_cast<std::int64_t>(dim));
    }
    return {std::move(shape), numel};
  }

  std::uint64_t bytes_for(DType dtype, std::uint64_t numel, const std::string& name) const {
    if (dtype == DType::float4_e2m1) return numel / 2 + numel % 2;
    std::uint64_t bytes = 0;
    if (__builtin_mul_overflow(numel, dtype_bits(dtype) / 8, &bytes))
      fail(name + ".shape", "byte size overflows 64 bits");
    return bytes;
  }

  std::span<const std::byte> buffer_;
  std::span<const std::byte> data_;
  std::string origin_;
};

}  // namespace

SafetensorsFile SafetensorsFile::parse(std::span<const std::byte> buffer, std::string origin) {
  Parser p(buffer, origin);
  const Json header = p.parse_json(p.split_header());
  SafetensorsFile f;
  f.origin_ = std::move(origin);
  std::vector<Span> spans;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      f.metadata_ = p.read_metadata(value);
      continue;
    }
    f.names_.push_back(name);
    auto [it, inserted] = f.entries_.emplace(name, SafetensorsEntry{});
    it->second = p.read_entry(name, value, spans, it->first);
  }
  p.check_overlaps(spans);
  return f;
}

SafetensorsFile SafetensorsFile::open(const std::string& path) {
  MappedFile mapped = MappedFile::open(path);
  SafetensorsFile f = parse(mapped.bytes(), path);
  f.file_ = std::move(mapped);  // moving keeps the mapping address, so the views stay valid
  return f;
}

SafetensorsFile parse_safetensors(std::span<const std::byte> buffer, std::string origin) {
  return SafetensorsFile::parse(buffer, std::move(origin));
}

bool SafetensorsFile::contains(std::string_view name) const { return entries_.find(name) != entries_.end(); }

const SafetensorsEntry& SafetensorsFile::info(std::string_view name) const {
  auto it = entries_.find(name);
  if (it == entries_.end())
    throw Error(Location{origin_, 0, std::string(name)}, "no such tensor in the file");
  return it->second;
}

HostTensor SafetensorsFile::load(std::string_view name) const {
  const SafetensorsEntry& e = info(name);
  HostTensor t(e.dtype, e.shape);
  if (!e.bytes.empty()) std::memcpy(t.bytes().data(), e.bytes.data(), e.bytes.size());
  return t;
}

}  // namespace kh
