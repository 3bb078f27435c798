# Benchmarks: acpx-bench (OSU-style tables, CSV) and the comparison scripts.
bin_PROGRAMS += acpx-bench
acpx_bench_SOURCES = bench/acpx_bench.cpp bench/bench_common.cpp bench/bench_common.hpp bench/col_bench.cpp \
	bench/copy_bench.cpp
acpx_bench_LDADD = libacpx.la
EXTRA_DIST += bench/compare_copy.sh
