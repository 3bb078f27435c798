#!/bin/sh
# Seed 001's reproduction, small (the README names the full one): acpx-model
# jitter up to 2^12 processes, 20 trials, writes seed001.csv with every line
# of both noise variants and seed001.md with its report; bad options exit 2.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "model_jitter: $*"; exit 1; }
"$ACPX_BUILDDIR/acpx-model" jitter --max-procs 4096 --trials 20 --out "$dir" > "$dir/out.txt" || fail "exit $?"
csv=$dir/seed001.csv md=$dir/seed001.md
head -1 "$csv" | grep -qx 'variant,bytes,procs,line,M,L,trials,max_mean_s,max_ci95_s,mean_mean_s,mean_ci95_s,noiseless_s' \
    || fail "bad header: $(head -1 "$csv")"
for v in a b; do
    for line in 'butterfly' '\[3\]' 'proposed(1)' 'proposed(2)'; do
        grep -q "^$v,8,4096,$line," "$csv" || fail "no row: variant $v, $line at 4096"
    done
done
# Every mean is at least its noiseless time; the plain butterfly at P = 2
# without windows open at the start is its noiseless time.
awk -F, 'NR > 1 && $8 + 1e-15 < $12 { print; bad = 1 } END { exit bad }' "$csv" || fail "below noiseless"
awk -F, '$1 == "b" && $3 == 2 && $4 == "butterfly" { d = $8 - $12; if (d < 0) d = -d; ok = d < 1e-15 } END { exit !ok }' \
    "$csv" || fail "P = 2, variant b: not noiseless"
grep -q '^Gate (every P > 2^14' "$md" || fail "no gate line"
grep -q '^First P whose mean time' "$md" || fail "no first-P line"
st=0
"$ACPX_BUILDDIR/acpx-model" jitter --max-procs 3 > /dev/null 2>&1 || st=$?
[ "$st" -eq 2 ] || fail "--max-procs 3: want exit 2, got $st"
echo "model_jitter: ok"
