# The basic layer: libacpx's GA, registration, GMA engine, agent, bootstrap
# and transports. Its programs (acprun, acpx-info) are in tools/.
libacpx_la_SOURCES = \
	basic/errors.cpp basic/errors.hpp basic/copy_bytes.cpp basic/copy_bytes.hpp \
	basic/config.cpp basic/config.hpp basic/idle.cpp basic/idle.hpp \
	basic/ga.hpp basic/protocol.hpp \
	basic/runtime.cpp basic/runtime.hpp basic/current_runtime.hpp basic/wait.ipp \
	basic/registry.cpp basic/heap.cpp basic/heap.hpp basic/global_memory.cpp basic/huge_pages.cpp basic/huge_pages.hpp \
	basic/gma.cpp basic/fault_injection.cpp basic/fault_injection.hpp basic/messages.cpp basic/sync.cpp basic/agent.cpp \
	basic/api_common.hpp basic/api_init.cpp basic/api_memory.cpp basic/api_gma.cpp \
	basic/layer.cpp basic/layer.hpp basic/signal_put.cpp \
	basic/bootstrap/bootstrap.hpp basic/bootstrap/wire.cpp basic/bootstrap/wire.hpp \
	basic/bootstrap/acprun_bootstrap.cpp basic/bootstrap/pmix_bootstrap.cpp \
	basic/transport/transport.hpp basic/transport/cpu_atomic.hpp basic/transport/factory.cpp \
	basic/onnode/on_node.cpp basic/onnode/on_node.hpp basic/onnode/cma.cpp basic/onnode/cma.hpp \
	basic/onnode/ptrace_access.cpp basic/onnode/ptrace_access.hpp \
	basic/onnode/shared_segment.cpp basic/onnode/shared_segment.hpp
if ACPX_HAVE_UCX
libacpx_la_SOURCES += basic/transport/ucx/ucx_transport.cpp
endif
if ACPX_HAVE_OFI
libacpx_la_SOURCES += \
	basic/transport/ofi/fabric_library.cpp basic/transport/ofi/fabric_library.hpp \
	basic/transport/ofi/ofi_transport.cpp basic/transport/ofi/ofi_transport.hpp \
	basic/transport/ofi/ofi_rma.cpp basic/transport/ofi/ofi_frames.cpp basic/transport/ofi/ofi_wire.hpp \
	basic/transport/ofi/ofi_select.cpp basic/transport/ofi/ofi_select.hpp \
	basic/transport/ofi/wake_channel.cpp basic/transport/ofi/wake_channel.hpp
endif
libacpx_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(UCX_CFLAGS) $(OFI_CFLAGS) $(PMIX_CFLAGS) $(JSON_CFLAGS)
# libfabric is not linked: it is opened when the ofi transport is asked
# for (basic/transport/ofi/fabric_library.hpp); only its headers are used.
libacpx_la_LIBADD = $(UCX_LIBS) $(PMIX_LIBS)
# Calls inside the library bind to its own functions, not through the
# PLT: a small round makes some thirty of them (Debian links most of its
# shared libraries so too).
libacpx_la_LDFLAGS = $(AM_LDFLAGS) -version-info 0:0:0 -Wl,-Bsymbolic-functions
