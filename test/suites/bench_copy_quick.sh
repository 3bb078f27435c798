#!/bin/sh
# acpx-bench copy in its quick mode: it runs, and its CSV has the
# documented columns and one row per (op, size).
set -eu
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT
"$ACPX_BUILDDIR/acprun" -n 3 "$ACPX_BUILDDIR/acpx-bench" copy --quick --sizes 8:64K --csv "$csv"
head -1 "$csv" | grep -qx 'benchmark,op,size,latency_us,bandwidth_MBps,iterations,ranks,transport' \
    || { echo "bad CSV header: $(head -1 "$csv")"; exit 1; }
rows=$(($(wc -l < "$csv") - 1))
[ "$rows" -eq 10 ] || { echo "expected 10 rows (5 ops x 2 sizes), got $rows"; cat "$csv"; exit 1; }
for op in put get remote_to_remote put_bw get_bw; do
    for size in 8 65536; do
        grep -q "^copy,$op,$size," "$csv" || { echo "missing row $op $size"; exit 1; }
    done
done
awk -F, 'NR > 1 && ($5 <= 0 || $7 != 3) { bad = 1 } END { exit bad }' "$csv" \
    || { echo "non-positive bandwidth or wrong rank count"; cat "$csv"; exit 1; }
echo "bench_copy_quick: ok"
