#!/bin/sh
# acpx acp_copy against ucx_perftest on this machine, in one run, and the
# two transports (UCX, libfabric) side by side.
#   compare_copy.sh BUILDDIR RESULTSDIR [REPEATS]
# Runs each measurement REPEATS times (default 3), interleaved so machine
# noise hits all alike, keeps the median, and prints the ratios the basic
# layer targets: 8 B put latency <= 2x UCX's, 1 MiB put bandwidth >= 80%.
set -eu
build=$1 out=$2 reps=${3:-3}
mkdir -p "$out"
port=$((20000 + $$ % 20000))
: > "$out/copy.csv"
: > "$out/perftest.csv"
echo "tool,test,size,value,unit" > "$out/perftest.csv"

perftest() {  # test size iters -> prints the "Final:" line's fields
    ucx_perftest -p "$port" -t "$1" -s "$2" -n "$3" >/dev/null 2>&1 &
    srv=$!
    sleep 0.5
    line=$(timeout 60 ucx_perftest 127.0.0.1 -p "$port" -t "$1" -s "$2" -n "$3" 2>/dev/null | grep '^Final:' || true)
    wait "$srv" 2>/dev/null || true
    echo "$line"
}
have_ofi=$("$build/acpx-info" | grep -q '^transports built in:.*ofi' && echo yes || echo no)
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : "nan")}'; }

for i in $(seq 1 "$reps"); do
    echo "== repeat $i/$reps: acpx-bench copy (3 ranks), user-registered arrays"
    "$build/acprun" -n 3 "$build/acpx-bench" copy --sizes 8:4M --csv "$out/copy.csv"
    echo "== repeat $i/$reps: acpx-bench copy (3 ranks), user arrays through UCX only (ACP_CMA=0)"
    ACP_CMA=0 "$build/acprun" -n 3 "$build/acpx-bench" copy --sizes 8:4M --iters 2000 --csv "$out/copy.csv"
    echo "== repeat $i/$reps: acpx-bench copy (3 ranks), acpx-allocated (starter) memory"
    "$build/acprun" -n 3 --starter-memsize 5M "$build/acpx-bench" copy --memory starter \
        --sizes 8:4M --csv "$out/copy.csv"
    if [ "$have_ofi" = yes ]; then
        for p in shm 'tcp;ofi_rxm'; do
            echo "== repeat $i/$reps: acpx-bench copy (3 ranks), libfabric $p only (ACP_CMA=0)"
            ACP_CMA=0 "$build/acprun" -n 3 "$build/acpx-bench" copy --transport "ofi:$p" \
                --sizes 8:4M --iters 2000 --csv "$out/copy.csv"
        done
        echo "== repeat $i/$reps: acpx-bench copy (3 ranks), UCX over tcp only (UCX_TLS=tcp ACP_CMA=0)"
        UCX_TLS=tcp ACP_CMA=0 "$build/acprun" -n 3 "$build/acpx-bench" copy --transport ucx \
            --sizes 8:4M --iters 2000 --csv "$out/copy.csv"
    fi
    echo "== repeat $i/$reps: ucx_perftest ucp_put_lat 8 B, ucp_put_bw 1 MiB"
    lat=$(perftest ucp_put_lat 8 100000 | awk '{print $4}')
    bw=$(perftest ucp_put_bw 1048576 5000 | awk '{print $7}')
    echo "   ucp_put_lat 8 B: ${lat:-?} us   ucp_put_bw 1 MiB: ${bw:-?} MB/s"
    echo "ucx_perftest,ucp_put_lat,8,${lat:-nan},us" >> "$out/perftest.csv"
    echo "ucx_perftest,ucp_put_bw,1048576,${bw:-nan},MB/s" >> "$out/perftest.csv"
done

exact() {  # label op size column -> median over repeats, rows whose transport is label
    awk -F, -v l="$1" -v op="$2" -v s="$3" -v c="$4" '$8==l && $2==op && $3==s {print $c}' \
        "$out/copy.csv" | median
}
col() {  # memory op size column -> the default UCX run's median (other transports: exact)
    exact "ucx/$1" "$2" "$3" "$4"
}
side() {  # label description
    echo "| $2 | $(exact "$1" put 8 4) | $(exact "$1" get 8 4) | $(exact "$1" remote_to_remote 8 4) | $(exact "$1" put_bw 1048576 5) |"
}
u_lat=$(awk -F, '$2=="ucp_put_lat" {print $4}' "$out/perftest.csv" | median)
u_bw=$(awk -F, '$2=="ucp_put_bw" {print $4}' "$out/perftest.csv" | median)
ratio() { awk -v a="$1" -v u="$2" 'BEGIN {printf "%.2f", a / u}'; }
verdict() { awk -v r="$1" -v t="$2" -v dir="$3" 'BEGIN {ok = dir == "le" ? r <= t : r >= t; print ok ? "met" : "MISSED"}'; }
rows() {  # memory label
    lat=$(col "$1" put 8 4) bw=$(col "$1" put_bw 1048576 5)
    lr=$(ratio "$lat" "$u_lat") br=$(ratio "$bw" "$u_bw")
    echo "| $2: 8 B put latency (us) | $lat | $u_lat | $lr x | <= 2x: $(verdict "$lr" 2 le) |"
    echo "| $2: 1 MiB put bandwidth (MB/s) | $bw | $u_bw | $br | >= 0.8: $(verdict "$br" 0.8 ge) |"
    echo "| $2: 8 B get latency (us) | $(col "$1" get 8 4) | | | |"
    echo "| $2: 8 B remote->remote latency (us) | $(col "$1" remote_to_remote 8 4) | | | |"
}

{
    echo "# acpx basic layer vs UCX, $(date -u +%Y-%m-%d), $(nproc) cores, median of $reps"
    echo
    echo "| measure | acpx | ucx_perftest | ratio | target |"
    echo "|---|---|---|---|---|"
    rows starter "acpx-allocated (starter) memory"
    rows user "user-registered arrays"
    rows user-ucx "user arrays, UCX only (ACP_CMA=0)"
    echo
    echo "acpx-allocated memory is mapped by on-node peers (plain memcpy), as ucx_perftest's"
    echo "UCX-allocated buffers are. A user's array can only be reached with a system call"
    echo "per copy (Cross-Memory Attach; no xpmem in Debian), which bounds its latency here."
    echo "acpx latency is issue + complete with the bytes visible at the destination;"
    echo "ucp_put_lat is half a put ping-pong. Full tables: copy.csv (acpx-bench), perftest.csv."
    if [ "$have_ofi" = yes ]; then
        echo
        echo "## Transports side by side: user arrays, every copy through the transport (ACP_CMA=0), 3 ranks"
        echo
        echo "| transport | 8 B put (us) | 8 B get (us) | 8 B remote->remote (us) | 1 MiB put (MB/s) |"
        echo "|---|---|---|---|---|"
        side ucx/user-ucx "UCX, its choice of transports (shared memory, cma)"
        side ofi:shm/user-ofi "libfabric shm"
        side ucx:tcp/user-ucx "UCX over tcp (UCX_TLS=tcp)"
        side "ofi:tcp;ofi_rxm/user-ofi" "libfabric tcp;ofi_rxm"
    fi
} > "$out/summary.md"
cat "$out/summary.md"
