# Tests. Multi-process suites run under acprun and mpirun (test/suites/*.sh);
# the launcher and fault tests drive acprun from a single-process gtest.
if HAVE_GTEST
check_PROGRAMS += test/basic/basic_test test/launcher/launcher_test test/launcher/fault_prog
test_basic_basic_test_CXXFLAGS = $(TEST_CXXFLAGS)
test_basic_basic_test_SOURCES = test/mp_main.cpp test/deny_cma.hpp test/mp_util.hpp test/report_util.hpp test/smaps_util.hpp \
	test/basic/query_test.cpp test/basic/copy_test.cpp test/basic/atomic_test.cpp \
	test/basic/bad_input_test.cpp test/basic/registration_test.cpp test/basic/agent_test.cpp \
	test/basic/cxx_api_test.cpp test/basic/failure_test.cpp test/basic/global_memory_test.cpp \
	test/basic/signal_put_test.cpp
test_basic_basic_test_CPPFLAGS = $(AM_CPPFLAGS) $(GTEST_CFLAGS)
test_basic_basic_test_LDADD = libacpx.la $(GTEST_LIBS)

test_launcher_launcher_test_CXXFLAGS = $(TEST_CXXFLAGS)
test_launcher_launcher_test_SOURCES = test/launcher/job_util.hpp test/launcher/launcher_test.cpp \
	test/launcher/binding_test.cpp tools/acprun/failures.cpp \
	tools/acprun/binding.cpp
test_launcher_launcher_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(GTEST_CFLAGS) $(HWLOC_CFLAGS)
test_launcher_launcher_test_LDADD = libacpx.la $(GTEST_LIBS) -lgtest_main $(HWLOC_LIBS)
test_launcher_fault_prog_CXXFLAGS = $(TEST_CXXFLAGS)
test_launcher_fault_prog_SOURCES = test/launcher/fault_prog.cpp
test_launcher_fault_prog_LDADD = libacpx.la
# In-process: the runtime's memory copies.
check_PROGRAMS += test/basic/copy_bytes_test
test_basic_copy_bytes_test_CXXFLAGS = $(TEST_CXXFLAGS)
test_basic_copy_bytes_test_SOURCES = test/basic/copy_bytes_test.cpp
test_basic_copy_bytes_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(GTEST_CFLAGS)
test_basic_copy_bytes_test_LDADD = libacpx.la $(GTEST_LIBS) -lgtest_main
# In-process: acp_malloc's allocator.
check_PROGRAMS += test/basic/heap_test
test_basic_heap_test_CXXFLAGS = $(TEST_CXXFLAGS)
test_basic_heap_test_SOURCES = test/basic/heap_test.cpp basic/heap.cpp basic/heap.hpp
test_basic_heap_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(GTEST_CFLAGS)
test_basic_heap_test_LDADD = $(GTEST_LIBS) -lgtest_main
# In-process: registered blocks onto huge pages.
check_PROGRAMS += test/basic/huge_pages_test
test_basic_huge_pages_test_CXXFLAGS = $(TEST_CXXFLAGS)
test_basic_huge_pages_test_SOURCES = test/basic/huge_pages_test.cpp test/smaps_util.hpp
test_basic_huge_pages_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(GTEST_CFLAGS)
test_basic_huge_pages_test_LDADD = libacpx.la $(GTEST_LIBS) -lgtest_main
# In-process: Cross-Memory Attach under the kernel's ptrace policy, and
# its copies.
check_PROGRAMS += test/basic/cma_access_test
test_basic_cma_access_test_CXXFLAGS = $(TEST_CXXFLAGS)
test_basic_cma_access_test_SOURCES = test/basic/cma_access_test.cpp test/basic/cma_channel_test.cpp
test_basic_cma_access_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(GTEST_CFLAGS)
test_basic_cma_access_test_LDADD = libacpx.la $(GTEST_LIBS) -lgtest_main

TESTS += test/suites/basic_acprun_np2.sh test/suites/basic_acprun_np3.sh \
	test/suites/basic_acprun_np4.sh test/suites/basic_acprun_np3_tcp.sh test/suites/basic_ucx_np4_two_hosts.sh \
	test/suites/basic_mpirun_np4_two_hosts.sh test/suites/faults_two_hosts.sh \
	test/suites/basic_mpirun_np3.sh test/suites/basic_cma_denied_np3.sh \
	test/launcher/launcher_test test/basic/copy_bytes_test test/basic/heap_test test/basic/cma_access_test \
	test/basic/huge_pages_test \
	test/suites/bench_copy_quick.sh \
	test/suites/bench_col_quick.sh test/suites/bench_compare_tiny.sh test/suites/bench_model_quick.sh \
	test/suites/bench_placement.sh test/suites/bench_quiet_check.sh test/suites/bench_floor_two_hosts.sh
endif
AM_TESTS_ENVIRONMENT = ACPX_SRCDIR='$(abs_top_srcdir)' ACPX_BUILDDIR='$(abs_top_builddir)'; \
	export ACPX_SRCDIR ACPX_BUILDDIR;
EXTRA_DIST += test/run-mp.sh test/run-cma-denied.sh test/run-two-hosts.sh test/two_hosts.sh test/suites test/lsan.supp test/tsan.supp

# The house: includes point down the layers, every ACP_* variable is in
# the one table.
# ACP-style C programs (acp.h only): the suite builds them with the
# installed acpcc, as a user would, and runs them with acprun.
EXTRA_DIST += test/programs/global_memory.c test/programs/channel_ring.c test/programs/segbuf_stream.c
TESTS += test/suites/acp_programs.sh
TESTS += test/suites/model_jitter.sh test/suites/model_place.sh test/suites/middle_allreduce_np8.sh
TESTS += test/suites/layers.sh test/suites/config_table.sh test/suites/format.sh
EXTRA_DIST += scripts/check-layers.sh

# The middle layer (persistent collectives), multi-process.
if HAVE_GTEST
check_PROGRAMS += test/middle/middle_test
test_middle_middle_test_CXXFLAGS = $(TEST_CXXFLAGS)
test_middle_middle_test_SOURCES = test/mp_main.cpp test/deny_cma.hpp test/mp_util.hpp test/report_util.hpp test/middle/col_util.hpp \
	test/middle/bcast_test.cpp test/middle/allgather_test.cpp test/middle/rounds_test.cpp \
	test/middle/lifecycle_test.cpp test/middle/bad_input_test.cpp test/middle/cxx_api_test.cpp \
	test/middle/choice_test.cpp test/middle/failure_test.cpp test/middle/channel_test.cpp \
	test/middle/segbuf_test.cpp test/middle/allreduce_test.cpp test/middle/agent_rounds_test.cpp \
	test/middle/one_call_test.cpp test/middle/pull_test.cpp
test_middle_middle_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(GTEST_CFLAGS)
test_middle_middle_test_LDADD = libacpx.la $(GTEST_LIBS)
TESTS += test/suites/middle_acprun_np1.sh test/suites/middle_acprun_np2.sh \
	test/suites/middle_acprun_np3.sh test/suites/middle_acprun_np4.sh \
	test/suites/middle_acprun_np5.sh test/suites/middle_acprun_np3_tcp.sh \
	test/suites/middle_mpirun_np3.sh test/suites/middle_ucx_np4_two_hosts.sh \
	test/suites/middle_mpirun_np4_two_hosts.sh test/suites/middle_timeout_np2.sh \
	test/suites/middle_cma_denied_np3.sh test/suites/middle_timeout_calls_np2.sh \
	test/suites/middle_timeout_np3.sh test/suites/middle_cma_denied_split_np2.sh
endif

# In-process: command lists and plans at sizes no job launches.
if HAVE_GTEST
check_PROGRAMS += test/collectives/lists_test
test_collectives_lists_test_CXXFLAGS = $(TEST_CXXFLAGS)
test_collectives_lists_test_SOURCES = test/collectives/lists_test.cpp test/collectives/stored_list_test.cpp \
	test/middle/plan_memory_test.cpp test/middle/plan_neighbours_test.cpp test/middle/ring_queue_test.cpp
test_collectives_lists_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(GTEST_CFLAGS)
test_collectives_lists_test_LDADD = libacpx.la $(GTEST_LIBS) -lgtest_main
check_PROGRAMS += test/collectives/model_test
test_collectives_model_test_CXXFLAGS = $(TEST_CXXFLAGS)
test_collectives_model_test_SOURCES = test/collectives/model_fixtures.hpp \
	test/collectives/calibration_test.cpp test/collectives/topology_test.cpp \
	test/collectives/model_test.cpp test/collectives/jitter_test.cpp test/collectives/place_test.cpp \
	test/collectives/flowsim_test.cpp
test_collectives_model_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(GTEST_CFLAGS)
test_collectives_model_test_LDADD = libacpx.la $(GTEST_LIBS) -lgtest_main
TESTS += test/collectives/model_test
TESTS += test/collectives/lists_test
endif

# The libfabric transport's framing, in-process; and the transport suites.
if HAVE_GTEST
if ACPX_HAVE_OFI
check_PROGRAMS += test/basic/ofi_wire_test
test_basic_ofi_wire_test_CXXFLAGS = $(TEST_CXXFLAGS)
test_basic_ofi_wire_test_SOURCES = test/basic/ofi_wire_test.cpp
test_basic_ofi_wire_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir) $(GTEST_CFLAGS)
test_basic_ofi_wire_test_LDADD = $(GTEST_LIBS) -lgtest_main
TESTS += test/basic/ofi_wire_test \
	test/suites/basic_ofi_shm_np3.sh test/suites/basic_ofi_tcp_np3.sh \
	test/suites/middle_ofi_shm_np3.sh test/suites/middle_ofi_tcp_np3.sh \
	test/suites/middle_ofi_tcp_np4_two_hosts.sh test/suites/basic_ofi_tcp_np4_two_hosts.sh \
	test/suites/basic_mpirun_ofi_np4_two_hosts.sh \
	test/suites/basic_cma_denied_ofi_np3.sh test/suites/middle_cma_denied_ofi_np3.sh
endif
endif
