// Registered memory moved onto transparent huge pages (ACP_HUGEPAGES).
// A Cross-Memory-Attach copy pins and copies the remote process's memory
// 4 KiB page by page; into or out of memory on 2 MiB pages it ran 2.2-3x
// faster on the 2-core VM (process_vm_writev of 1 MiB: 154 against 56-66
// us; 4 MiB: 874 against 290-302). So at registration each 2 MiB-aligned
// block lying wholly inside the range, every page of it already in memory,
// is collapsed onto one huge page (MADV_COLLAPSE, Linux 6.1), when
// ACP_HUGEPAGES=1 (off by default: the model prices 4 KiB-page copies).
// Only such blocks: the caller's other memory keeps its pages, no page is added
// (a sparse array stays sparse), and the range's later page faults are
// left to the system's THP setting. A collapse costs 1-5 ms per block
// here (it allocates the huge page and copies into it): paid once per
// registration, repaid after a few copies of a persistent handle's array.
#pragma once

#include <cstddef>

namespace acpx::basic::huge_pages {

// The 2 MiB-aligned blocks inside [addr, addr + size): *first and *bytes
// (bytes 0 when none).
void interior(const void *addr, size_t size, char **first, size_t *bytes);

// Collapses the interior blocks of [addr, addr + size) whose pages are all
// resident onto huge pages. Best effort: the bytes never change, and a
// block the kernel will not collapse (an older kernel, pinned pages, no
// free huge page) stays as it was. Returns the bytes now on huge pages.
size_t collapse(void *addr, size_t size);

}  // namespace acpx::basic::huge_pages
