#include "base/jail/system_paths.h"

#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <system_error>

namespace kh {

namespace {

namespace fs = std::filesystem;

constexpr const char* kSystemDirs[] = {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
// What the dynamic loader, compilers and the C library read; the rest of /etc (shadow,
// ssh keys, credentials of services) stays out.
constexpr const char* kEtcFiles[] = {"/etc/ld.so.cache",   "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                                     "/etc/alternatives",  "/etc/passwd",     "/etc/group",
                                     "/etc/nsswitch.conf", "/etc/localtime",  "/etc/nvidia"};

int add_loaded_library_dir(dl_phdr_info* info, size_t, void* data) {
  auto* dirs = static_cast<std::set<std::string>*>(data);
  if (info->dlpi_name != nullptr && info->dlpi_name[0] == '/') {
    std::error_code ec;
    const fs::path real = fs::canonical(info->dlpi_name, ec);
    if (!ec) dirs->insert(real.parent_path().string());
  }
  return 0;
}

void add_search_path(std::set<std::string>& dirs, const std::string& list) {
  std::stringstream in(list);
  std::string dir;
  while (std::getline(in, dir, ':'))
    if (!dir.empty() && dir[0] == '/') dirs.insert(dir);
}

// The absolute folders named in ld.so.conf and the files it includes from ld.so.conf.d.
void add_loader_config(std::set<std::string>& dirs) {
  std::vector<fs::path> files{"/etc/ld.so.conf"};
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/etc/ld.so.conf.d", ec))
    if (entry.path().extension() == ".conf") files.push_back(entry.path());
  for (const auto& file : files) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      line.erase(0, line.find_first_not_of(" \t"));
      if (!line.empty() && line[0] == '/') dirs.insert(line.substr(0, line.find_first_of(" \t#")));
    }
  }
}

}  // namespace

std::vector<fs::path> system_read_only_paths() {
  std::vector<fs::path> out(std::begin(kSystemDirs), std::end(kSystemDirs));
  out.insert(out.end(), std::begin(kEtcFiles), std::end(kEtcFiles));
  std::set<std::string> dirs;
  ::dl_iterate_phdr(add_loaded_library_dir, &dirs);
  if (const char* path = std::getenv("LD_LIBRARY_PATH")) add_search_path(dirs, path);
  add_loader_config(dirs);
  out.insert(out.end(), dirs.begin(), dirs.end());
  return out;
}

std::vector<fs::path> gpu_device_paths() {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("nvidia", 0) == 0) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace kh
