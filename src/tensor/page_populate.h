// Populating the pages of a large fresh allocation in one request.
//
// A fresh multi-gigabyte block (an MoE layer's weights) is mapped lazily, so the first
// touch of every 4 KiB page is a page fault: about a second per gigabyte on a virtual
// machine, more than generating the data. Asking the kernel to populate the whole range
// at once (MADV_POPULATE_WRITE, Linux 5.14) is about three times faster. Best effort:
// where the kernel lacks it, the pages fault on first touch as before.
#pragma once

#include <cstddef>

namespace kh {

// Blocks smaller than this are left alone: the system call would cost more than it saves.
inline constexpr std::size_t kPopulateMinBytes = std::size_t{16} << 20;

// Populates, for writing, the whole pages inside [p, p + bytes) when bytes is at least
// kPopulateMinBytes. True when the kernel did; false leaves the pages to fault on
// demand as usual (a small block, an old kernel, not Linux), which is never an error.
bool populate_pages(void* p, std::size_t bytes) noexcept;

}  // namespace kh
