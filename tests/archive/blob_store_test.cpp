// The blob store: content addressed, atomic, idempotent, safe under concurrent writers.
#include "archive/blob_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <thread>
#include <vector>

#include "archive_fixtures.h"
#include "error/error.h"

namespace kh::archive {
namespace {

using test::read_bytes;
using test::TempDir;

// SHA-256("abc"), FIPS 180-4.
constexpr const char* kAbc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

std::size_t files_in(const std::filesystem::path& dir) {
  std::error_code ec;
  std::size_t n = 0;
  for (std::filesystem::directory_iterator it(dir, ec); !ec && it != std::filesystem::directory_iterator();
       ++it)
    ++n;
  return n;
}

TEST(BlobStore, NamesABlobByTheSha256OfItsBytesUnderATwoDigitShard) {
  TempDir dir;
  BlobStore store(dir / "blobs");
  EXPECT_EQ(store.put("abc"), kAbc);
  const auto path = dir / "blobs" / "ba" / kAbc;
  EXPECT_EQ(store.path_of(kAbc), path);
  EXPECT_EQ(read_bytes(path), "abc");
  EXPECT_TRUE(store.contains(kAbc));
  EXPECT_EQ(store.read(kAbc), "abc");
  EXPECT_EQ(files_in(store.temp_dir()), 0u) << "no temp file is left behind";
}

TEST(BlobStore, PuttingTheSameBytesAgainLeavesTheFileUntouched) {
  TempDir dir;
  BlobStore store(dir / "blobs");
  store.put("abc");
  struct stat before {};
  ASSERT_EQ(::stat(store.path_of(kAbc).c_str(), &before), 0);
  EXPECT_EQ(store.put("abc"), kAbc);
  struct stat after {};
  ASSERT_EQ(::stat(store.path_of(kAbc).c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
}

TEST(BlobStore, FileAndBytesOfTheSameContentAreOneBlob) {
  TempDir dir;
  BlobStore store(dir / "blobs");
  std::string big(300000, 'x');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 7 % 251);
  const auto file = dir.write("input.bin", big);
  const std::string from_file = store.put_file(file);
  EXPECT_EQ(from_file, store.put(big));
  EXPECT_EQ(store.read(from_file), big);
  EXPECT_EQ(store.put(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(BlobStore, ReadRefusesABlobWhoseBytesChanged) {
  TempDir dir;
  BlobStore store(dir / "blobs");
  store.put("abc");
  std::filesystem::permissions(store.path_of(kAbc), std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  std::ofstream(store.path_of(kAbc), std::ios::trunc) << "abd";
  try {
    (void)store.read(kAbc);
    FAIL() << "a damaged blob was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("does not match"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)store.read(std::string(64, 'a')), Error) << "a missing blob";
}

TEST(BlobStore, RefusesNamesThatAreNotASha256) {
  TempDir dir;
  BlobStore store(dir / "blobs");
  EXPECT_THROW((void)store.path_of("../../etc/passwd"), Error);
  EXPECT_THROW((void)store.path_of(std::string(64, 'G')), Error);
  EXPECT_FALSE(is_sha256_hex(std::string(63, 'a')));
  EXPECT_TRUE(is_sha256_hex(kAbc));
}

TEST(BlobStore, ManyThreadsPuttingOneContentLeaveOneWholeBlob) {
  TempDir dir;
  BlobStore store(dir / "blobs");
  const std::string content(1 << 20, 'k');
  std::vector<std::thread> threads;
  std::vector<std::string> names(8);
  for (std::size_t t = 0; t < names.size(); ++t)
    threads.emplace_back([&, t] { names[t] = store.put(content); });
  for (auto& t : threads) t.join();
  for (const auto& n : names) EXPECT_EQ(n, names[0]);
  EXPECT_EQ(store.read(names[0]), content);
  EXPECT_EQ(files_in(dir / "blobs" / names[0].substr(0, 2)), 1u);
  EXPECT_EQ(files_in(store.temp_dir()), 0u);
}

TEST(BlobStore, AStrayTempFileFromAKilledWriterChangesNothing) {
  TempDir dir;
  BlobStore store(dir / "blobs");
  dir.write("blobs/tmp/blob.123.0.abc", "ab");  // what a kill in the middle of a write leaves
  EXPECT_EQ(store.put("abc"), kAbc);
  EXPECT_EQ(store.read(kAbc), "abc");
}

}  // namespace
}  // namespace kh::archive
