#!/bin/sh
# acpx-bench bcast / allgather in quick mode, every storage and execution
# mode: they run, and the CSV has the documented columns and one row per
# (configuration, size) with a positive latency.
set -eu
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
for kind in bcast allgather; do
    for mode in direct buffered; do
        for exec in delegated root; do
            "$ACPX_BUILDDIR/acprun" -n 3 "$ACPX_BUILDDIR/acpx-bench" $kind --quick --sizes 1:64K \
                --mode $mode --exec $exec --csv "$csv" > /dev/null
        done
    done
done
head -1 "$csv" | grep -qx 'benchmark,op,size,latency_us,bandwidth_MBps,iterations,ranks,transport' \
    || { echo "bad CSV header: $(head -1 "$csv")"; exit 1; }
rows=$(($(wc -l < "$csv") - 1))
[ "$rows" -eq 16 ] || { echo "expected 16 rows (8 configurations x 2 sizes), got $rows"; cat "$csv"; exit 1; }
for kind in bcast allgather; do
    for op in direct-delegated direct-root buffered-delegated buffered-root; do
        for size in 1 65536; do
            grep -q "^$kind,$kind-$op,$size," "$csv" || { echo "missing row $kind $op $size"; cat "$csv"; exit 1; }
        done
    done
done
awk -F, 'NR > 1 && ($4 <= 0 || $7 != 3) { bad = 1 } END { exit bad }' "$csv" \
    || { echo "non-positive latency or wrong rank count"; cat "$csv"; exit 1; }
# A bad argument is reported once, by rank 0, with the usage; acprun names
# rank 0 as the rank that failed, and the job fails.
err=$(mktemp)
trap 'rm -f "$csv" "$err"' EXIT
if "$ACPX_BUILDDIR/acprun" -n 3 "$ACPX_BUILDDIR/acpx-bench" bcast --sizes 8:bad > /dev/null 2> "$err"; then
    echo "acpx-bench bcast --sizes 8:bad succeeded"; exit 1
fi
[ "$(grep -c "^acpx-bench: --sizes: '8:bad' is not MIN:MAX" "$err")" -eq 1 ] \
    && [ "$(grep -c '^usage: acprun -n N acpx-bench' "$err")" -eq 1 ] \
    && grep -q '^acprun: rank 0 (pid [0-9]*) exited with status 2; stopping the other ranks' "$err" \
    || { echo "bad --sizes: want one complaint, one usage, rank 0 named"; cat "$err"; exit 1; }
echo "bench_col_quick: ok"
