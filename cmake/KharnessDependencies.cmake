# Every dependency comes from a Debian package (scripts/setup.sh installs them).
# Header-only or static forms are preferred so that a binary built here runs on a
# GPU host whose distribution ships other shared-library versions.
find_package(nlohmann_json 3.10 REQUIRED)
find_package(fmt REQUIRED)
# kharness::fmt: fmt's out-of-line code compiled once. Debian ships fmt as a shared library
# only (which the GPU host lacks), and fmt's header-only form compiles that code into every
# translation unit that formats, some 160 of them, about doubling their compile time. The
# one file's explicit instantiations are the templates fmt 9 declares but defines only in
# format-inl.h; any other fmt major version falls back to the header-only form.
if(fmt_VERSION VERSION_GREATER_EQUAL 9 AND fmt_VERSION VERSION_LESS 10)
  add_library(kharness_fmt STATIC "${PROJECT_SOURCE_DIR}/cmake/fmt_compiled_once.cpp")
  get_target_property(kharness_fmt_includes fmt::fmt-header-only INTERFACE_INCLUDE_DIRECTORIES)
  target_include_directories(kharness_fmt SYSTEM PUBLIC ${kharness_fmt_includes})
else()
  add_library(kharness_fmt INTERFACE)
  target_link_libraries(kharness_fmt INTERFACE fmt::fmt-header-only)
endif()
add_library(kharness::fmt ALIAS kharness_fmt)
find_package(CLI11 REQUIRED)
find_package(dlpack REQUIRED)
find_package(Threads REQUIRED)

# Static SQLite: the archive binary must run on the GPU host without a matching libsqlite3.
find_library(KHARNESS_SQLITE_STATIC NAMES libsqlite3.a)
if(KHARNESS_SQLITE_STATIC)
  add_library(kharness_sqlite3 INTERFACE)
  target_link_libraries(kharness_sqlite3 INTERFACE ${KHARNESS_SQLITE_STATIC} ${CMAKE_DL_LIBS} Threads::Threads m)
else()
  find_package(SQLite3 REQUIRED)
  add_library(kharness_sqlite3 INTERFACE)
  target_link_libraries(kharness_sqlite3 INTERFACE SQLite::SQLite3)
endif()

# CUDA is optional: the CPU backend always builds; the CUDA backend turns on where
# the toolkit (nvcc, cudart, CUPTI) is found.
find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND AND TARGET CUDA::cupti)
  set(KHARNESS_WITH_CUDA ON)
  message(STATUS "kharness: CUDA backend ON (toolkit ${CUDAToolkit_VERSION} at ${CUDAToolkit_BIN_DIR})")
  # kharness's own kernels are few (the device-peak probes): native code for Hopper,
  # PTX from sm_80 for every other GPU. Candidates are built separately, for the
  # device they run on.
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "80-virtual;90a-real")
  endif()
  set(CMAKE_CUDA_COMPILER "${CUDAToolkit_NVCC_EXECUTABLE}" CACHE FILEPATH "nvcc")
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
else()
  set(KHARNESS_WITH_CUDA OFF)
  message(STATUS "kharness: CUDA toolkit not found, CPU backend only")
endif()

# cpp-httplib serves the dashboard (`kharness serve`). Debian ships it as a shared
# library whose header must be compiled with the same feature macros (OpenSSL, zlib,
# brotli), which its pkg-config file carries. Optional: without it, serve says so.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(KHARNESS_HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
endif()
if(KHARNESS_HTTPLIB_FOUND)
  set(KHARNESS_WITH_HTTPLIB ON)
  message(STATUS "kharness: dashboard server ON (cpp-httplib ${KHARNESS_HTTPLIB_VERSION})")
else()
  set(KHARNESS_WITH_HTTPLIB OFF)
  message(STATUS "kharness: cpp-httplib not found, `kharness serve` disabled")
endif()

# libcurl carries the HTTP agents (openai, anthropic): TLS, proxies, HTTP/2 and timeouts
# that a hand-written client would have to re-earn. Optional: without it those agents
# say so and all else builds.
find_package(CURL QUIET)
if(CURL_FOUND)
  set(KHARNESS_WITH_CURL ON)
  message(STATUS "kharness: HTTP agents ON (libcurl ${CURL_VERSION_STRING})")
else()
  set(KHARNESS_WITH_CURL OFF)
  message(STATUS "kharness: libcurl not found, the openai and anthropic agents are disabled")
endif()
