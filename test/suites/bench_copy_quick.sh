#!/bin/sh
# acpx-bench copy in its quick mode, over each transport built: it runs,
# and its CSV has the documented columns and one row per (op, size), with
# the transport it ran on; on acp_malloc memory too; and acpx-bench
# channel's quick mode, with a row per (op, size) and checked data. Over libfabric shm the large size is 4 MiB: a
# single write that big to a target waiting in acp_sync never completed
# before transfers were split (ofi_transport.cpp, kMaxRma).
set -eu
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
transports=ucx
"$ACPX_BUILDDIR/acpx-info" | grep -q '^transports built in:.*ofi' && transports="ucx ofi:shm"
for t in $transports; do
    : > "$csv"
    big=65536
    [ "$t" = ofi:shm ] && big=4194304
    "$ACPX_BUILDDIR/acprun" -n 3 "$ACPX_BUILDDIR/acpx-bench" copy --transport "$t" --quick \
        --sizes "8:$big" --csv "$csv"
    head -1 "$csv" | grep -qx 'benchmark,op,size,latency_us,bandwidth_MBps,iterations,ranks,transport' \
        || { echo "bad CSV header: $(head -1 "$csv")"; exit 1; }
    rows=$(($(wc -l < "$csv") - 1))
    [ "$rows" -eq 11 ] || { echo "$t: expected 11 rows (5 ops x 2 sizes, the ping-pong), got $rows"; cat "$csv"; exit 1; }
    for op in put get remote_to_remote put_bw get_bw; do
        for size in 8 $big; do
            grep -q "^copy,$op,$size," "$csv" || { echo "$t: missing row $op $size"; exit 1; }
        done
    done
    grep -q "^copy,put_pingpong,8," "$csv" || { echo "$t: missing the ping-pong row"; exit 1; }
    awk -F, -v t="$t/user" 'NR > 1 && ($5 <= 0 || $7 != 3 || $8 != t) { bad = 1 } END { exit bad }' "$csv" \
        || { echo "$t: non-positive bandwidth, wrong rank count or transport"; cat "$csv"; exit 1; }
done
: > "$csv"
"$ACPX_BUILDDIR/acprun" -n 3 "$ACPX_BUILDDIR/acpx-bench" copy --memory malloc --quick --sizes 8:65536 --csv "$csv"
[ "$(grep -c ',ucx/malloc$' "$csv")" -eq 11 ] || { echo "copy --memory malloc: expected 11 rows"; cat "$csv"; exit 1; }
: > "$csv"
"$ACPX_BUILDDIR/acprun" -n 2 "$ACPX_BUILDDIR/acpx-bench" channel --quick --sizes 8:65536 --csv "$csv"
for op in latency bw; do
    for size in 8 65536; do
        grep -q "^channel,$op,$size," "$csv" || { echo "channel: missing row $op $size"; cat "$csv"; exit 1; }
    done
done
! grep -q nan "$csv" || { echo "channel: wrong data"; cat "$csv"; exit 1; }
echo "bench_copy_quick: ok ($transports; malloc memory; channel)"
