#!/bin/sh
# acpx-bench bcast / allgather in quick mode, every storage and execution
# mode, and the one-call functions: they run, and the CSV has the documented columns and one row per
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
    # acp_bcast / acp_allgather (cached handles), the default execution mode.
    "$ACPX_BUILDDIR/acprun" -n 3 "$ACPX_BUILDDIR/acpx-bench" $kind --quick --sizes 1:64K --mode one-call \
        --csv "$csv" > /dev/null
done
head -1 "$csv" | grep -qx 'benchmark,op,size,latency_us,bandwidth_MBps,iterations,ranks,transport' \
    || { echo "bad CSV header: $(head -1 "$csv")"; exit 1; }
rows=$(($(wc -l < "$csv") - 1))
[ "$rows" -eq 20 ] || { echo "expected 20 rows (10 configurations x 2 sizes), got $rows"; cat "$csv"; exit 1; }
for kind in bcast allgather; do
    for op in direct-delegated direct-root buffered-delegated buffered-root one-call-delegated; do
        for size in 1 65536; do
            grep -q "^$kind,$kind-$op,$size," "$csv" || { echo "missing row $kind $op $size"; cat "$csv"; exit 1; }
        done
    done
done
awk -F, 'NR > 1 && ($4 <= 0 || $7 != 3) { bad = 1 } END { exit bad }' "$csv" \
    || { echo "non-positive latency or wrong rank count"; cat "$csv"; exit 1; }
# Small rounds on a large handle (--handle): rows labelled with it, checked
# rounds right (a wrong byte fails the run).
big=$(mktemp)
trap 'rm -f "$csv" "$big"' EXIT
for kind in bcast allgather; do
    "$ACPX_BUILDDIR/acprun" -n 3 "$ACPX_BUILDDIR/acpx-bench" $kind --quick --sizes 8:1K --handle 64K --csv "$big" \
        > /dev/null || { echo "$kind --handle 64K failed"; exit 1; }
    for size in 8 1024; do
        grep -q "^$kind,$kind-direct-delegated-handle65536,$size," "$big" \
            || { echo "missing --handle row $kind $size"; cat "$big"; exit 1; }
    done
done
# A bad argument is reported once, by rank 0, with the usage; acprun names
# rank 0 as the rank that failed, and the job fails.
err=$(mktemp)
trap 'rm -f "$csv" "$big" "$err"' EXIT
if "$ACPX_BUILDDIR/acprun" -n 3 "$ACPX_BUILDDIR/acpx-bench" bcast --sizes 8:bad > /dev/null 2> "$err"; then
    echo "acpx-bench bcast --sizes 8:bad succeeded"; exit 1
fi
[ "$(grep -c "^acpx-bench: --sizes: '8:bad' is not MIN:MAX" "$err")" -eq 1 ] \
    && [ "$(grep -c '^usage: acprun -n N acpx-bench' "$err")" -eq 1 ] \
    && grep -q '^acprun: rank 0 (pid [0-9]*) exited with status 2; stopping the other ranks' "$err" \
    || { echo "bad --sizes: want one complaint, one usage, rank 0 named"; cat "$err"; exit 1; }
# The allreduce: its CSV rows (sizes from 8 B), and the noise run: a row
# per size with every figure, without and with the noise, for acpx and for
# each MPI built; a bad --noise is refused (status 2).
out=$(mktemp)
trap 'rm -f "$csv" "$big" "$err" "$out"' EXIT
"$ACPX_BUILDDIR/acprun" -n 2 "$ACPX_BUILDDIR/acpx-bench" allreduce --quick --sizes 1:64K --csv "$out" > /dev/null
for size in 8 65536; do
    grep -q "^allreduce,allreduce-butterfly,$size," "$out" || { echo "no allreduce row $size"; cat "$out"; exit 1; }
done
check_noise() {  # $1: label; the table on stdin
    awk -v what="$1" '/^[0-9]/ { n++; for (i = 2; i <= 7; i++) if (!($i > 0)) bad = 1 }
        END { if (n != 4 || bad) { print what ": want 4 rows (8..64 B) of 6 positive figures"; exit 1 } }'
}
"$ACPX_BUILDDIR/acprun" -n 2 "$ACPX_BUILDDIR/acpx-bench" allreduce --noise 1000:10 --late 1:5:10 --rounds 300 \
    --sizes 8:64 > "$out" && check_noise acpx < "$out" || { cat "$out"; exit 1; }
for peer in mpich openmpi; do
    exe="$ACPX_BUILDDIR/bench/peers/mpi_coll_bench.$peer"
    [ -x "$exe" ] || continue
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "mpirun.$peer" -np 2 "$exe" allreduce --noise 1000:10 \
        --late 1:5:10 --rounds 300 --sizes 8:64 --impl "$peer" > "$out" && check_noise "$peer" < "$out" \
        || { cat "$out"; exit 1; }
done
st=0
"$ACPX_BUILDDIR/acprun" -n 2 "$ACPX_BUILDDIR/acpx-bench" allreduce --noise 10:100 > /dev/null 2>&1 || st=$?
[ "$st" -eq 2 ] || { echo "--noise 10:100 (LEN > PERIOD): want status 2, got $st"; exit 1; }
echo "bench_col_quick: ok"
