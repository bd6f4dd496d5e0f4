#include "tensor/safetensors.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "error/error.h"
#include "tensor/random_fill.h"

namespace kh {
namespace {

namespace fs = std::filesystem;

class Safetensors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("kh_safetensors_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A file with a given header text and data section, the length field computed unless given.
  std::string raw_file(const std::string& name, const std::string& header, const std::string& data,
                       std::optional<std::uint64_t> length = std::nullopt) const {
    std::string bytes(8, '\0');
    std::uint64_t n = length.value_or(header.size());
    for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
    bytes += header + data;
    const std::string p = path(name);
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }

  // Opening `p` must fail with a message that names the file and contains `reason`.
  static void expect_error(const std::string& p, const std::string& reason, const std::string& field = "") {
    try {
      (void)SafetensorsFile::open(p);
      FAIL() << "no error for " << p;
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(p), std::string::npos) << what;
      EXPECT_NE(what.find(reason), std::string::npos) << what;
      if (!field.empty()) {
        EXPECT_EQ(e.where().field, field) << what;
      }
    }
  }

  fs::path dir_;
};

TEST_F(Safetensors, WriteReadRoundTrip) {
  HostTensor a(DType::bfloat16, {3, 5});
  HostTensor b(DType::int64, {7});
  HostTensor c(DType::float4_e2m1, {5});
  HostTensor d(DType::float32, {0, 4});
  HostTensor s = HostTensor::scalar(DType::float32);
  fill_random(a, 1);
  fill_random(b, 2);
  fill_random(c, 3);
  s.as<float>()[0] = 2.5f;
  const std::string p = path("round.safetensors");
  write_safetensors(p, {{"a", &a}, {"b", &b}, {"c", &c}, {"d", &d}, {"s", &s}}, {{"format", "pt"}});
  EXPECT_EQ(fs::file_size(p) % 8, std::size_t{(8 + 30 + 56 + 3 + 0 + 4) % 8});

  const SafetensorsFile f = SafetensorsFile::open(p);
  EXPECT_EQ(f.names(), (std::vector<std::string>{"a", "b", "c", "d", "s"}));
  EXPECT_EQ(f.metadata().at("format"), "pt");
  const std::pair<const char*, const HostTensor*> all[] = {
      {"a", &a}, {"b", &b}, {"c", &c}, {"d", &d}, {"s", &s}};
  for (const auto& [name, original] : all) {
    const SafetensorsEntry& e = f.info(name);
    EXPECT_EQ(e.dtype, original->dtype()) << name;
    EXPECT_EQ(e.shape, original->shape()) << name;
    ASSERT_EQ(e.bytes.size(), original->nbytes()) << name;
    EXPECT_EQ(std::memcmp(e.bytes.data(), original->bytes().data(), e.bytes.size()), 0) << name;
    HostTensor loaded = f.load(name);
    EXPECT_EQ(loaded.nbytes(), original->nbytes());
    EXPECT_EQ(std::memcmp(loaded.bytes().data(), original->bytes().data(), loaded.nbytes()), 0) << name;
  }
  EXPECT_EQ(f.load("s").as<float>()[0], 2.5f);
}

TEST_F(Safetensors, HeaderIsPaddedToEightBytes) {
  HostTensor a(DType::int8, {3});
  const std::string p = path("pad.safetensors");
  write_safetensors(p, {{"x", &a}});
  std::ifstream in(p, std::ios::binary);
  std::uint64_t n = 0;
  in.read(reinterpret_cast<char*>(&n), 8);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(fs::file_size(p), 8 + n + 3);
}

TEST_F(Safetensors, WriterRejectsDuplicateAndReservedNames) {
  HostTensor a(DType::int8, {1});
  const std::string p = path("dup.safetensors");
  EXPECT_THROW(write_safetensors(p, {{"x", &a}, {"x", &a}}), Error);
  EXPECT_THROW(write_safetensors(p, {{"__metadata__", &a}}), Error);
  EXPECT_FALSE(fs::exists(p));
  for (const auto& entry : fs::directory_iterator(dir_)) ADD_FAILURE() << "left behind " << entry.path();
}

TEST_F(Safetensors, WriteReplacesAtomically) {
  HostTensor a(DType::int8, {1});
  HostTensor b(DType::int8, {2});
  const std::string p = path("atomic.safetensors");
  write_safetensors(p, {{"a", &a}});
  write_safetensors(p, {{"b", &b}});
  EXPECT_EQ(SafetensorsFile::open(p).names(), std::vector<std::string>{"b"});
}

TEST_F(Safetensors, MissingFile) { expect_error(path("nope.safetensors"), "cannot open"); }

TEST_F(Safetensors, ShorterThanTheLengthField) {
  const std::string p = path("short.safetensors");
  std::ofstream(p, std::ios::binary).write("\x02\x00\x00", 3);
  expect_error(p, "shorter than the 8-byte header length");
  std::ofstream(path("empty.safetensors"), std::ios::binary).flush();
  expect_error(path("empty.safetensors"), "file is 0 bytes");
}

TEST_F(Safetensors, HeaderLengthOverflowsTheFile) {
  expect_error(raw_file("over.safetensors", "{}", "", 3), "header length 3 overflows the file", "header");
  expect_error(raw_file("huge.safetensors", "{}", "", ~0ull), "exceeds the 100000000 byte limit", "header");
  expect_error(raw_file("big.safetensors", "{}", "", 200'000'000), "exceeds the 100000000 byte limit",
               "header");
}

TEST_F(Safetensors, TruncatedDataSection) {
  const std::string header = R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})";
  expect_error(raw_file("trunc.safetensors", header, std::string(10, 'x')),
               "end 16 is past the data section of 10 bytes", "w.data_offsets");
}

TEST_F(Safetensors, BadJson) {
  expect_error(raw_file("json.safetensors", R"({"w": {"dtype": )", ""), "header is not valid JSON", "header");
  expect_error(raw_file("array.safetensors", "[1, 2]", ""), "header is not a JSON object", "header");
}

TEST_F(Safetensors, OffsetsOutOfRange) {
  expect_error(
      raw_file("range.safetensors", R"({"w":{"dtype":"U8","shape":[4],"data_offsets":[8,12]}})", "12345678"),
      "end 12 is past the data section of 8 bytes", "w.data_offsets");
  expect_error(
      raw_file("rev.safetensors", R"({"w":{"dtype":"U8","shape":[0],"data_offsets":[4,2]}})", "12345678"),
      "begin 4 is after end 2", "w.data_offsets");
  expect_error(raw_file("neg.safetensors", R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[-1,0]}})", "1"),
               "data_offsets must be non-negative integers", "w.data_offsets");
  expect_error(
      raw_file("three.safetensors", R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1,2]}})", "1"),
      "must be an array [begin, end]", "w.data_offsets");
}

TEST_F(Safetensors, OverlappingOffsets) {
  const std::string header =
      R"({"a":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"I32","shape":[2],"data_offsets":[4,12]}})";
  expect_error(raw_file("overlap.safetensors", header, std::string(12, 'x')), "overlap tensor \"a\"",
               "b.data_offsets");
}

TEST_F(Safetensors, SizeMustMatchShape) {
  expect_error(raw_file("size.safetensors", R"({"w":{"dtype":"F16","shape":[2,3],"data_offsets":[0,10]}})",
                        std::string(10, 'x')),
               "range holds 10 bytes but shape [2, 3] of float16 needs 12", "w.data_offsets");
  expect_error(raw_file("mul.safetensors",
                        R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}})", ""),
               "element count overflows", "w.shape");
  expect_error(raw_file("bytes.safetensors",
                        R"({"w":{"dtype":"I64","shape":[4611686018427387904],"data_offsets":[0,0]}})", ""),
               "byte size overflows", "w.shape");
}

TEST_F(Safetensors, BadDtypesAndShapes) {
  expect_error(
      raw_file("f64.safetensors", R"({"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", "12345678"),
      "dtype \"F64\" is not supported", "w.dtype");
  expect_error(raw_file("unk.safetensors", R"({"w":{"dtype":"Q7","shape":[1],"data_offsets":[0,1]}})", "1"),
               "unknown dtype \"Q7\"", "w.dtype");
  expect_error(raw_file("nodt.safetensors", R"({"w":{"shape":[1],"data_offsets":[0,1]}})", "1"), "missing",
               "w.dtype");
  expect_error(
      raw_file("shape.safetensors", R"({"w":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}})", "1"),
      "shape entries must be non-negative integers", "w.shape");
  expect_error(
      raw_file("fshape.safetensors", R"({"w":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}})", "1"),
      "shape entries must be non-negative integers", "w.shape");
  expect_error(raw_file("entry.safetensors", R"({"w":3})", ""), "tensor entry is not a JSON object", "w");
}

TEST_F(Safetensors, MetadataMustBeStrings) {
  expect_error(raw_file("meta.safetensors", R"({"__metadata__":{"a":1}})", ""),
               "metadata values must be strings", "__metadata__.a");
  expect_error(raw_file("meta2.safetensors", R"({"__metadata__":[]})", ""),
               "must be an object of string to string", "__metadata__");
}

TEST_F(Safetensors, UnknownTensorNamesAnError) {
  HostTensor a(DType::int8, {1});
  const std::string p = path("names.safetensors");
  write_safetensors(p, {{"a", &a}});
  const SafetensorsFile f = SafetensorsFile::open(p);
  EXPECT_FALSE(f.contains("b"));
  try {
    (void)f.info("b");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(p), std::string::npos);
    EXPECT_EQ(e.where().field, "b");
  }
}

TEST(SafetensorsBuffer, ParsesInMemoryAndNamesTheOrigin) {
  std::string bytes(8, '\0');
  const std::string header = R"({"t":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})";
  bytes[0] = static_cast<char>(header.size());
  bytes += header + std::string("\x01\x00", 2);
  const auto span = std::as_bytes(std::span(bytes.data(), bytes.size()));
  const SafetensorsFile f = parse_safetensors(span, "<memory>");
  EXPECT_EQ(f.info("t").dtype, DType::boolean);
  EXPECT_EQ(f.info("t").bytes.data(), span.data() + 8 + header.size()) << "zero-copy view";
  try {
    (void)parse_safetensors(span.first(5), "<memory>");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where().file, "<memory>");
  }
}

}  // namespace
}  // namespace kh
