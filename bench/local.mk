# Benchmarks: acpx-bench (OSU-style tables, CSV) and the comparison scripts.
bin_PROGRAMS += acpx-bench
acpx_bench_SOURCES = bench/acpx_bench.cpp bench/bench_common.cpp bench/bench_common.hpp bench/col_bench.cpp \
	bench/copy_bench.cpp bench/memory_bench.cpp bench/calibrate_bench.cpp bench/model_check_bench.cpp \
	bench/placement.cpp bench/placement.hpp bench/channel_bench.cpp bench/allreduce_bench.cpp \
	bench/col_handle.cpp bench/col_handle.hpp bench/overlap_bench.cpp bench/one_call_bench.cpp
acpx_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)
acpx_bench_LDADD = libacpx.la
EXTRA_DIST += bench/compare_copy.sh bench/compare_channel.sh bench/model_check bench/compare bench/compare_overlap.py \
	bench/quiet_check.sh \
	bench/floor_two_hosts.sh

# The raw TCP floor between two hosts (bench/floor_two_hosts.sh).
noinst_PROGRAMS += bench/peers/tcp_pingpong
bench_peers_tcp_pingpong_SOURCES = bench/peers/tcp_pingpong.c
bench_peers_tcp_pingpong_CFLAGS = -std=gnu11 -O2 -Wall -Wextra -Werror

# Peers: the same benchmarks over MPI and OpenSHMEM, each built with its own
# wrapper compiler (so not as automake programs), when configure found it.
peer_cflags = -O2 -Wall
if HAVE_MPICH
noinst_SCRIPTS_peers_mpich = bench/peers/mpi_coll_bench.mpich bench/peers/mpi_p2p_bench.mpich
bench/peers/mpi_coll_bench.mpich: $(srcdir)/bench/peers/mpi_coll_bench.c $(srcdir)/bench/peers/peer_common.h $(srcdir)/bench/peers/peer_noise.h $(srcdir)/bench/peers/peer_compute.h
	@mkdir -p bench/peers
	$(AM_V_CC)$(MPICC_MPICH) $(peer_cflags) -o $@ $(srcdir)/bench/peers/mpi_coll_bench.c
bench/peers/mpi_p2p_bench.mpich: $(srcdir)/bench/peers/mpi_p2p_bench.c $(srcdir)/bench/peers/peer_common.h
	@mkdir -p bench/peers
	$(AM_V_CC)$(MPICC_MPICH) $(peer_cflags) -o $@ $(srcdir)/bench/peers/mpi_p2p_bench.c
endif
if HAVE_OPENMPI
noinst_SCRIPTS_peers_openmpi = bench/peers/mpi_coll_bench.openmpi bench/peers/mpi_p2p_bench.openmpi
bench/peers/mpi_coll_bench.openmpi: $(srcdir)/bench/peers/mpi_coll_bench.c $(srcdir)/bench/peers/peer_common.h $(srcdir)/bench/peers/peer_noise.h $(srcdir)/bench/peers/peer_compute.h
	@mkdir -p bench/peers
	$(AM_V_CC)$(MPICC_OPENMPI) $(peer_cflags) -o $@ $(srcdir)/bench/peers/mpi_coll_bench.c
bench/peers/mpi_p2p_bench.openmpi: $(srcdir)/bench/peers/mpi_p2p_bench.c $(srcdir)/bench/peers/peer_common.h
	@mkdir -p bench/peers
	$(AM_V_CC)$(MPICC_OPENMPI) $(peer_cflags) -o $@ $(srcdir)/bench/peers/mpi_p2p_bench.c
endif
if HAVE_OSHMEM
noinst_SCRIPTS_peers_oshmem = bench/peers/shmem_coll_bench
bench/peers/shmem_coll_bench: $(srcdir)/bench/peers/shmem_coll_bench.c $(srcdir)/bench/peers/peer_common.h
	@mkdir -p bench/peers
	$(AM_V_CC)$(OSHCC) $(peer_cflags) -o $@ $(srcdir)/bench/peers/shmem_coll_bench.c
endif
noinst_SCRIPTS = $(noinst_SCRIPTS_peers_mpich) $(noinst_SCRIPTS_peers_openmpi) $(noinst_SCRIPTS_peers_oshmem)
CLEANFILES += bench/peers/mpi_coll_bench.mpich bench/peers/mpi_coll_bench.openmpi bench/peers/shmem_coll_bench \
	bench/peers/mpi_p2p_bench.mpich bench/peers/mpi_p2p_bench.openmpi
EXTRA_DIST += bench/peers/mpi_coll_bench.c bench/peers/shmem_coll_bench.c bench/peers/peer_common.h \
	bench/peers/peer_noise.h bench/peers/peer_compute.h bench/peers/mpi_p2p_bench.c
