#include "compile/detail/build_key.h"

#include <array>
#include <fstream>
#include <sstream>

#include "base/sha256.h"
#include "error/error.h"
#include "error/location.h"

namespace kh::detail {

namespace {
constexpr std::string_view kKeyFormat = "kharness-build-key-1";
constexpr std::array<std::string_view, 3> kAbiHeaders{"kharness/kernel.h", "kharness/entry.h",
                                                      "dlpack/dlpack.h"};

void update_list(Sha256& h, const std::vector<std::string>& items) {
  h.update_field(std::to_string(items.size()));
  for (const std::string& item : items) h.update_field(item);
}

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(at_file(file.string()), "cannot read header");
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}
}  // namespace

std::string build_key(const BuildRequest& request, const Toolchain& toolchain,
                      const std::filesystem::path& include_dir, const EntryShim& shim) {
  Sha256 h;
  h.update_field(kKeyFormat);
  h.update_field(request.language);
  h.update_field(request.arch);
  h.update_field(toolchain.name());
  h.update_field(toolchain.version());
  update_list(h, toolchain.flags(request.arch));
  update_list(h, request.extra_flags);
  update_list(h, request.defines);
  h.update_field(request.entry_file);
  h.update_field(request.entry_function);
  h.update_field(signature_text(request.signature));
  h.update_field(shim.file_name);
  h.update_field(shim.content);
  for (std::string_view header : kAbiHeaders) {
    h.update_field(header);
    h.update_field(read_file(include_dir / header));
  }
  // Only a binding other than kharness's adds fields, so existing keys stay as they were.
  if (request.binding != EntryBinding::kharness) {
    h.update_field(entry_binding_name(request.binding));
    h.update_field(request.destination_passing ? "destination-passing" : "value-returning");
    h.update_field(read_file(include_dir / "kharness/tvm_ffi_bridge.h"));
    h.update_field(request.dependency_fingerprint);
    std::vector<std::string> dirs;
    for (const auto& d : request.extra_include_dirs) dirs.push_back(d.string());
    for (const auto& d : request.library_dirs) dirs.push_back(d.string());
    update_list(h, dirs);
    update_list(h, request.libraries);
  }
  h.update_field(std::to_string(request.sources.size()));
  for (const BuildSource& src : request.sources) {
    h.update_field(src.path);
    h.update_field(src.content);
  }
  return h.hex_digest();
}

}  // namespace kh::detail
