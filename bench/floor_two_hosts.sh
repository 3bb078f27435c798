#!/bin/sh
# acp_copy between two emulated hosts (test/two_hosts.sh, one rank on each)
# against the floor under it, in one run: ucx_perftest over the same path
# (put latency 8 B, put bandwidth 1 MiB) and raw TCP (bench/peers/
# tcp_pingpong: a polling ping-pong of 8 B, a stream of 1 MiB messages).
# The 8 B figures are the same measure everywhere: half the round trip of
# a ping-pong whose sides poll their memory (acpx-bench copy's ping-pong);
# acpx's put + completion (one put, then acp_complete) is shown beside.
# REPEATS launches of each (default 3), interleaved; every one counts: per
# measure the median and the range.
#   floor_two_hosts.sh BUILDDIR RESULTSDIR [REPEATS] [--quick]
# Writes RESULTSDIR/floor.csv (every launch: tool,measure,size,value) and
# RESULTSDIR/floor.md with issue 62's targets: 8 B put <= 1.2x
# ucx_perftest's, 1 MiB >= 0.9x raw TCP's, on UCX and on libfabric
# tcp;ofi_rxm. --quick: fewer iterations (a smoke test of the script).
set -eu
build=$(cd "$1" && pwd) out=$2 reps=${3:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
hosts="$src/test/two_hosts.sh"
mkdir -p "$out"
csv="$out/floor.csv"
echo "tool,measure,size,value" > "$csv"
pt_lat=100000 pt_bw=2000 copy_iters=""
[ "${4:-}" = --quick ] && pt_lat=2000 pt_bw=50 copy_iters="--iters 200"
bed=$(mktemp -d "${TMPDIR:-/tmp}/acpx-bed.XXXXXXXX")
trap 'sh "$hosts" down "$bed"' EXIT
sh "$hosts" up "$bed" || exit $?  # 77: the hosts cannot be made here (not root)
port=$((20000 + $$ % 20000))
b_addr=10.231.0.2  # host b's address (two_hosts.sh)

# Each server gets a port of its own: a port just closed may still be
# held. perftest runs in a subshell ($(...)), so the caller moves it on.
perftest() {  # port test size iters -> the "Final:" line; server on host b, client on host a
    sh "$hosts" host "$bed" b ucx_perftest -p "$1" -t "$2" -s "$3" -n "$4" > /dev/null 2>&1 &
    srv=$!
    sleep 0.5
    line=$(timeout 120 sh "$hosts" host "$bed" a ucx_perftest "$b_addr" -p "$1" -t "$2" -s "$3" -n "$4" 2>/dev/null \
        | grep '^Final:' || true)
    wait "$srv" 2>/dev/null || true
    echo "$line"
}
have_ofi=$("$build/acpx-info" | grep -q '^transports built in:.*ofi' && echo yes || echo no)

for i in $(seq 1 "$reps"); do
    for t in ucx ofi; do
        [ "$t" = ofi ] && [ "$have_ofi" = no ] && continue
        echo "== launch $i/$reps: acpx-bench copy across the hosts, $t"
        tmp="$out/copy-$t.tmp.csv"
        rm -f "$tmp"
        env_t="ACP_TRANSPORT=ucx"
        [ "$t" = ofi ] && env_t="ACP_TRANSPORT=ofi FI_PROVIDER=tcp;ofi_rxm"
        # shellcheck disable=SC2086  # $env_t and $copy_iters are lists
        env $env_t "$build/acprun" -n 2 "$hosts" rank "$bed" "$build/acpx-bench" copy --sizes 8:1M $copy_iters \
            --csv "$tmp" > /dev/null
        awk -F, -v t="$t" '$2=="put" && $3==8 {print "acpx-" t ",put_complete,8," $4}
                           $2=="put_pingpong" && $3==8 {print "acpx-" t ",put_lat,8," $4}
                           $2=="put_bw" && $3==1048576 {print "acpx-" t ",put_bw,1048576," $5}' "$tmp" >> "$csv"
        rm -f "$tmp"
    done
    echo "== launch $i/$reps: ucx_perftest ucp_put_lat 8 B, ucp_put_bw 1 MiB"
    lat=$(perftest $((port + 1)) ucp_put_lat 8 "$pt_lat" | awk '{print $4}')  # mean, as acpx-bench's
    bw=$(perftest $((port + 2)) ucp_put_bw 1048576 "$pt_bw" | awk '{print $7}')
    echo "ucx_perftest,put_lat,8,${lat:-nan}" >> "$csv"
    echo "ucx_perftest,put_bw,1048576,${bw:-nan}" >> "$csv"
    echo "== launch $i/$reps: raw TCP"
    port=$((port + 3))
    sh "$hosts" host "$bed" b "$build/bench/peers/tcp_pingpong" -s "$port" > /dev/null 2>&1 &
    srv=$!
    timeout 120 sh "$hosts" host "$bed" a "$build/bench/peers/tcp_pingpong" "$b_addr" "$port" \
        | awk '$1=="latency" {print "tcp,put_lat,8," $3} $1=="bandwidth" {print "tcp,put_bw,1048576," $3}' >> "$csv"
    wait "$srv" 2>/dev/null || true
done

python3 - "$csv" "$out/floor.md" "$reps" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def vals(tool, measure):
    return [float(r["value"]) for r in rows if r["tool"] == tool and r["measure"] == measure and r["value"] != "nan"]
def cell(v):
    return f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})" if v else "no data"
tools = [t for t in ("acpx-ucx", "acpx-ofi", "ucx_perftest", "tcp") if vals(t, "put_lat") or vals(t, "put_bw")]
out = [f"# acp_copy between two emulated hosts against the floor, {sys.argv[3]} launches each (median, range)", "",
       "| | " + " | ".join(tools) + " |", "|---|" + "---|" * len(tools),
       "| put 8 B, ping-pong: half the round trip (us) | " + " | ".join(cell(vals(t, "put_lat")) for t in tools) + " |",
       "| put 8 B + completion (us) | " + " | ".join(cell(vals(t, "put_complete")) if vals(t, "put_complete") else "-"
                                            for t in tools) + " |",
       "| put 1 MiB (MB/s) | " + " | ".join(cell(vals(t, "put_bw")) for t in tools) + " |", "", "## Targets", ""]
def ratio(a, b):
    return statistics.median(a) / statistics.median(b) if a and b else None
for t in ("acpx-ucx", "acpx-ofi"):
    lat, bw = ratio(vals(t, "put_lat"), vals("ucx_perftest", "put_lat")), ratio(vals(t, "put_bw"), vals("tcp", "put_bw"))
    if lat is not None:
        out.append(f"- {t}: 8 B put ping-pong {lat:.2f}x ucx_perftest's (target <= 1.2x): "
                   f"{'met' if lat <= 1.2 else 'MISSED'}")
    if bw is not None:
        out.append(f"- {t}: 1 MiB put {bw:.2f}x raw TCP's (target >= 0.9x): {'met' if bw >= 0.9 else 'MISSED'}")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
