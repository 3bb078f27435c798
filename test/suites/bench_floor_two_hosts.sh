#!/bin/sh
# bench/floor_two_hosts.sh once, --quick: acp_copy across the two emulated
# hosts on UCX (and libfabric where built), ucx_perftest and raw TCP over
# the same link, each with a figure in floor.csv, and floor.md with the
# targets. Skipped (77) where the hosts cannot be made (not root).
set -eu
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rc=0
sh "$ACPX_SRCDIR/bench/floor_two_hosts.sh" "$ACPX_BUILDDIR" "$out" 1 --quick > "$out/log" 2>&1 || rc=$?
[ "$rc" = 77 ] && { cat "$out/log"; echo "no hosts: skipped"; exit 77; }
[ "$rc" = 0 ] || { cat "$out/log"; echo "bench_floor_two_hosts: the script failed ($rc)"; exit 1; }
for tool in acpx-ucx ucx_perftest tcp; do
    for measure in put_lat put_bw; do
        v=$(awk -F, -v t="$tool" -v m="$measure" '$1==t && $2==m {print $4}' "$out/floor.csv")
        awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' \
            || { echo "bench_floor_two_hosts: no $tool $measure figure:"; cat "$out/floor.csv"; exit 1; }
    done
done
grep -q '^acpx-ucx,put_complete,8,[0-9]' "$out/floor.csv" \
    || { echo "bench_floor_two_hosts: no acpx put + completion figure:"; cat "$out/floor.csv"; exit 1; }
grep -q '^- acpx-ucx: 8 B put .*x ucx_perftest.s (target <= 1.2x): ' "$out/floor.md" \
    && grep -q '^- acpx-ucx: 1 MiB put .*x raw TCP.s (target >= 0.9x): ' "$out/floor.md" \
    || { echo "bench_floor_two_hosts: no targets in floor.md:"; cat "$out/floor.md"; exit 1; }
