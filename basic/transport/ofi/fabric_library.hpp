// libfabric, opened when the ofi transport is first asked for instead of
// linked into libacpx. Debian's libfabric pulls in PSM (libpsm_infinipath,
// libpsm2), whose constructors sleep about 0.2 s to time the CPU in every
// process that loads them (cornelisnetworks/opa-psm2#73): linked, that
// was the start of every acpx program and every rank, UCX or not.
//
// The transport calls six functions of libfabric's; the rest of its API
// (fi_domain, fi_writemsg, fi_close, ...) are inlines over the objects'
// ops tables. Each is looked up at the symbol version a program linked
// against this libfabric binds (configure finds them), so a newer
// library's fi_info layout is never handed to code built for this one.
#pragma once

#include <rdma/fabric.h>

#include <string>

namespace acpx::basic::ofi {

struct Fabric {
    decltype(&::fi_getinfo) getinfo = nullptr;
    decltype(&::fi_freeinfo) freeinfo = nullptr;
    decltype(&::fi_dupinfo) dupinfo = nullptr;
    decltype(&::fi_fabric) fabric = nullptr;
    decltype(&::fi_strerror) strerror = nullptr;
    decltype(&::fi_version) version = nullptr;
    fi_info *allocinfo() const { return dupinfo(nullptr); }  // fi_allocinfo
};

// Opens libfabric (it stays loaded: providers may keep threads) and
// fills *out; false with *why ("cannot open libfabric.so.1: ...") if the
// library or one of the six is missing.
bool load_fabric(Fabric *out, std::string *why);

}  // namespace acpx::basic::ofi
