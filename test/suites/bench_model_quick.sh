#!/bin/sh
# The model's tools end to end: acpx-bench calibrate writes a calibration
# file (2 ranks of one node; of two nodes) that acpx-model and
# the library load; acpx-bench model-check writes
# one CSV row per (operation, algorithm, size); acpx-model predicts and
# compares, and refuses bad input with status 2; acprun -v and acpx-info
# show the calibration in use (-v also each handle's choice).
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() { "$ACPX_BUILDDIR/acprun" "$@"; }
fail() { echo "bench_model_quick: $*"; exit 1; }

# Up to 128K: one size above a bcast tree's inline slots (64K), so the
# checks of what happens above them below have a row to judge.
run -n 2 "$ACPX_BUILDDIR/acpx-bench" calibrate --quick --sizes 1K:128K --out "$dir/cal.json" > "$dir/cal.txt"
grep -q '"schema": "acpx-calibration/1"' "$dir/cal.json" || fail "calibration file: $(cat "$dir/cal.json")"
[ "$(sed '/right behind/q' "$dir/cal.txt" | grep -c '^[0-9]')" -eq 9 ] \
    || fail "calibrate: want 9 sizes (0, 1K..128K): $(cat "$dir/cal.txt")"
# Streamed blocks: pipeline:16 rounds of 1K..128K, blocks of 64..8192 bytes.
[ "$(sed -n '/right behind/,/walk arrays/p' "$dir/cal.txt" | grep -c '^[0-9]')" -eq 8 ] \
    || fail "calibrate: want 8 stream blocks (64..8192): $(cat "$dir/cal.txt")"
# The footprint walk (--quick: arrays of 1 and 16 MiB, spans of 2 and 32),
# a 1 MiB entry taking longer than nothing.
[ "$(sed '1,/walk arrays/d' "$dir/cal.txt" | awk '/^[0-9]/ && $2 > 0' | wc -l)" -eq 2 ] \
    || fail "calibrate: want 2 footprint spans: $(cat "$dir/cal.txt")"
for k in comm_direct comm_stream comm_footprint; do
    grep -q "\"$k\"" "$dir/cal.json" || fail "calibration file: no $k"
done
# The placement probe ran between ranks 0 and 1 (one node): its fastest
# one-way time, > 0 ns, in the file and in the output's last line.
python3 -c 'import json, sys; sys.exit(not json.load(open(sys.argv[1]))["pair_ns"] > 0)' "$dir/cal.json" \
    || fail "calibration file: no pair_ns > 0: $(cat "$dir/cal.json")"
tail -n 1 "$dir/cal.txt" | grep -Eq '^# placement: ranks 0-1: [1-9][0-9]* ns one way at best; samples taken as they came' \
    || fail "calibrate: no placement line: $(tail -n 3 "$dir/cal.txt")"
# The probe alone: the pair's time now and at best, > 0 ns, and the far
# rule (bench/compare reads it); --near waits for a near pair first; a
# bad --near and one rank are refused (status 2).
run -n 2 "$ACPX_BUILDDIR/acpx-bench" placement --near 50 > "$dir/pair.txt" || fail "placement: $(cat "$dir/pair.txt")"
grep -Eq '^pair_ns now [1-9][0-9.]* best [1-9][0-9.]* far_over [1-9][0-9.]*x [1-9][0-9]*$' "$dir/pair.txt" \
    || fail "placement: $(cat "$dir/pair.txt")"
st=0; run -n 2 "$ACPX_BUILDDIR/acpx-bench" placement --near -1 > "$dir/pair.txt" 2>&1 || st=$?
[ "$st" -eq 2 ] && grep -q "^acpx-bench: --near: '-1' is not a time in ns > 0" "$dir/pair.txt" \
    || fail "placement --near -1: status $st: $(cat "$dir/pair.txt")"
st=0; run -n 1 "$ACPX_BUILDDIR/acpx-bench" placement > "$dir/pair.txt" 2>&1 || st=$?
[ "$st" -eq 2 ] && grep -q "^acpx-bench placement: ranks 0-1: no placement probe" "$dir/pair.txt" \
    || fail "placement on one rank: status $st: $(cat "$dir/pair.txt")"
# The core's handover (time slicing's switch): > 0, in the file and said.
python3 -c 'import json, sys; sys.exit(not json.load(open(sys.argv[1]))["switch_s"] > 0)' "$dir/cal.json" \
    || fail "calibration file: no switch_s > 0: $(cat "$dir/cal.json")"
grep -Eq '^# a core handed over between two processes \(sched_yield\): [0-9.]*[1-9][0-9.]* us$' "$dir/cal.txt" \
    || fail "calibrate: no handover line: $(cat "$dir/cal.txt")"
# Only on 2 ranks: ranks that crowd a node are priced from these by time
# slicing (status 2 and a message on 3).
crowd=$(($(nproc) + 1))
st=0; run -n 3 "$ACPX_BUILDDIR/acpx-bench" calibrate --quick --sizes 1K:4K --out "$dir/three.json" > "$dir/out" 2>&1 \
    || st=$?
[ "$st" -eq 2 ] && grep -q '^acpx-bench calibrate: runs on 2 ranks, of one node or of two (acprun -n 2), not 3$' \
    "$dir/out" && [ ! -e "$dir/three.json" ] || fail "calibrate on 3 ranks: status $st: $(cat "$dir/out")"
# --sweeps K: every curve measured K times over, the file holding each
# sample's median (the headings say so); a count outside 1..9 is refused
# (status 2).
run -n 2 "$ACPX_BUILDDIR/acpx-bench" calibrate --quick --sweeps 2 --sizes 1K:4K --out "$dir/sw.json" > "$dir/out" \
    || fail "calibrate --sweeps 2: $(cat "$dir/out")"
[ "$(grep -c '^# sweep 2 of 2 measured' "$dir/out")" -eq 1 ] \
    && grep -q '^# acpx calibration, 2 processes, .*, each sample the median of 2 sweeps$' "$dir/out" \
    || fail "calibrate --sweeps 2: $(cat "$dir/out")"
python3 - "$dir/sw.json" <<'PY' || fail "calibrate --sweeps 2: $(cat "$dir/sw.json")"
import json, sys
c = json.load(open(sys.argv[1]))
assert [b for b, _ in c["comm"]] == [0, 1024, 2048, 4096], c["comm"]
assert c["switch_s"] > 0, c
PY
for k in 0 10 two; do
    st=0; run -n 2 "$ACPX_BUILDDIR/acpx-bench" calibrate --quick --sweeps "$k" --out "$dir/sw.json" > "$dir/out" 2>&1 \
        || st=$?
    [ "$st" -eq 2 ] && grep -q "^acpx-bench: --sweeps: '$k' is not a count from 1 to 9" "$dir/out" \
        || fail "calibrate --sweeps $k: status $st: $(cat "$dir/out")"
done
# On 2 ranks of two emulated hosts (test/two_hosts.sh) it adds the
# network's curves, a time per size; without a 2-rank file it refuses.
bed="$dir/bed"
hosts="$ACPX_SRCDIR/test/two_hosts.sh"
sh "$hosts" up "$bed" > "$dir/bed.txt" 2>&1 || fail "two hosts: $(cat "$dir/bed.txt")"
trap 'sh "$hosts" down "$bed"; rm -rf "$dir"' EXIT
run -n 2 "$hosts" rank "$bed" "$ACPX_BUILDDIR/acpx-bench" calibrate --quick --sizes 1K:64K --out "$dir/cal.json" \
    > "$dir/net.txt" || fail "network calibrate: $(cat "$dir/net.txt")"
for k in comm_net comm_net_stream comm_net_pair comm_direct switch_s; do
    grep -q "\"$k\"" "$dir/cal.json" || fail "network calibrate: no $k in $(cat "$dir/cal.json")"
done
[ "$(sed '/right behind/q' "$dir/net.txt" | awk '/^[0-9]/ && $2 > 0' | wc -l)" -eq 8 ] \
    || fail "network calibrate: want 8 sizes (0, 1K..64K): $(cat "$dir/net.txt")"
# Each size above 0 with its 2-member allgather round (a copy each way).
[ "$(sed '/right behind/q' "$dir/net.txt" | awk '/^[0-9]/ && $1 > 0 && $4 > 0' | wc -l)" -eq 7 ] \
    || fail "network calibrate: want 7 pair times (1K..64K): $(cat "$dir/net.txt")"
if run -n 2 "$hosts" rank "$bed" "$ACPX_BUILDDIR/acpx-bench" calibrate --quick --out "$dir/none.json" \
    > "$dir/out" 2>&1; then
    fail "network calibrate without a 2-rank file: accepted"
fi
grep -q 'of two nodes it adds the network.s curves' "$dir/out" || fail "network calibrate: $(cat "$dir/out")"
sh "$hosts" down "$bed"
trap 'rm -rf "$dir"' EXIT

ACP_CALIBRATION="$dir/cal.json" run -n 3 "$ACPX_BUILDDIR/acpx-bench" model-check --quick --sizes 4K:64K \
    --out "$dir/mc.csv" > "$dir/mc.txt"
head -1 "$dir/mc.csv" | grep -qx 'op,algo,procs,size,measured_us,predicted_us,ratio' \
    || fail "bad CSV header: $(head -1 "$dir/mc.csv")"
# 3 members: 9 bcast candidates (4 trees, pipeline:4..32, scatter_ring) and
# 4 allgather algorithms (no neighbor exchange), 2 sizes.
rows=$(($(wc -l < "$dir/mc.csv") - 1))
[ "$rows" -eq 26 ] || fail "expected 26 rows, got $rows: $(cat "$dir/mc.csv")"
for a in bcast,binomial bcast,knomial:4 bcast,chain bcast,pipeline:8 bcast,scatter_ring allgather,bruck \
         allgather,recdoubling allgather,ring; do
    grep -q "^$a,3,65536," "$dir/mc.csv" || fail "missing row $a 65536"
done
awk -F, 'NR > 1 && ($5 <= 0 || $6 <= 0 || $7 <= 0) { bad = 1 } END { exit bad }' "$dir/mc.csv" \
    || fail "non-positive time or ratio: $(cat "$dir/mc.csv")"
grep -q '^# predicted best is the measured best' "$dir/mc.txt" || fail "no summary: $(cat "$dir/mc.txt")"

model="$ACPX_BUILDDIR/acpx-model"
"$model" predict --algo bruck --procs 24 --size 1M --topology torus:1x6x4 --calibration "$dir/cal.json" > "$dir/p.txt"
[ "$(grep -c '^ *[0-9]' "$dir/p.txt")" -eq 4 ] || fail "bruck over 24: want 4 steps (the depths of its lists): $(cat "$dir/p.txt")"
grep -q "calibration: $dir/cal.json" "$dir/p.txt" || fail "predict does not name its calibration"
# ACP_COL_INLINE as the library reads it: 0 sends a 1 KiB round through
# the data path (comm_direct), a bad value is refused.
a=$("$model" predict --algo binomial --procs 2 --size 1K --calibration "$dir/cal.json" | tail -1)
b=$(ACP_COL_INLINE=0 "$model" predict --algo binomial --procs 2 --size 1K --calibration "$dir/cal.json" | tail -1)
[ "$a" != "$b" ] || fail "ACP_COL_INLINE=0 does not change the prediction: $a"
if ACP_COL_INLINE=lots "$model" predict --algo binomial --procs 2 --size 1K > "$dir/out" 2>&1; then
    fail "ACP_COL_INLINE=lots: accepted"
fi
grep -q '^acpx-model: ACP_COL_INLINE: ' "$dir/out" || fail "ACP_COL_INLINE=lots: $(cat "$dir/out")"
# More ranks than the calibration's cores on one node: time sliced, each
# step a switch more, and said so; on as many, not.
"$model" predict --algo chain --procs "$crowd" --size 1K --calibration "$dir/cal.json" > "$dir/p.txt"
grep -q "^# $crowd procs on $(nproc) cores: time sliced, each step +[0-9.]* us for a switch" "$dir/p.txt" \
    || fail "predict on a crowded node: $(cat "$dir/p.txt")"
"$model" predict --algo chain --procs "$(nproc)" --size 1K --calibration "$dir/cal.json" > "$dir/p.txt"
! grep -q 'time sliced' "$dir/p.txt" || fail "predict with a core per proc: $(cat "$dir/p.txt")"
"$model" compare --op allgather --procs 24 --sizes 1K:4M --topology torus:1x6x4 > "$dir/c.txt"
grep -q '^# crossovers' "$dir/c.txt" || fail "compare: no crossovers section: $(cat "$dir/c.txt")"
[ "$(grep '^ *[0-9]' "$dir/c.txt" | grep -c '\*')" -eq 13 ] || fail "compare: want one best per size (13): $(cat "$dir/c.txt")"
# Over 1,024 members an allgather weighs ring, Bruck and neighbor exchange,
# and recursive doubling over a power of two.
"$model" compare --op allgather --procs 2048 --sizes 1K:2K --topology torus:8x16x16 > "$dir/c.txt"
grep -q '^ *size  *ring  *bruck  *recdoubling  *neighbor$' "$dir/c.txt" || fail "compare over 2048: $(cat "$dir/c.txt")"
"$model" compare --op allgather --procs 2050 --sizes 1K:2K --topology torus:8x16x16 > "$dir/c.txt"
grep -q '^ *size  *ring  *bruck  *neighbor$' "$dir/c.txt" || fail "compare over 2050: $(cat "$dir/c.txt")"
for bad in "predict --algo neighbor --procs 5 --size 1K" "predict --algo telepathy --procs 4 --size 1" \
           "predict --algo ring --procs 4 --size 1 --topology torus:0" "compare --procs 4" \
           "predict --algo ring --procs 4 --size 1 --calibration /nonexistent.json" \
           "predict --algo ring --procs 2048 --size 1" "compare --op allgather --procs 131074"; do
    # shellcheck disable=SC2086  # $bad is the argument list
    if "$model" $bad > "$dir/out" 2>&1; then fail "acpx-model $bad: accepted"; fi
    grep -q '^acpx-model: ' "$dir/out" || fail "acpx-model $bad: no message: $(cat "$dir/out")"
done

# acpx-model merge: each sample the median of the files' (here the
# first comm sample at 1x, 3x and 2x: 2x), machine says so; files of
# other cores, unreadable or none are refused with a message naming them.
python3 - "$dir/cal.json" "$dir" <<'PY' || fail "cannot write the files to merge"
import json, sys
c = json.load(open(sys.argv[1]))
for name, f in (("m1", 1), ("m3", 3), ("m2", 2)):
    d = dict(c, comm=[[b, v * f if i == 0 else v] for i, (b, v) in enumerate(c["comm"])])
    json.dump(d, open("%s/%s.json" % (sys.argv[2], name), "w"))
json.dump(dict(c, cores=c["cores"] + 1), open(sys.argv[2] + "/other.json", "w"))
PY
"$model" merge --out "$dir/merged.json" "$dir/m1.json" "$dir/m3.json" "$dir/m2.json" \
    || fail "acpx-model merge: refused three files of one machine"
python3 - "$dir/cal.json" "$dir/merged.json" <<'PY' || fail "acpx-model merge: $(cat "$dir/merged.json")"
import json, sys
c, m = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
(b, v), (mb, mv) = c["comm"][0], m["comm"][0]
assert b == mb and abs(mv - 2 * v) <= 1e-9 * v, (c["comm"][0], m["comm"][0])
assert m["comm"][1:] == c["comm"][1:] and m["memcpy"] == c["memcpy"]
assert m["machine"].endswith("(median of 3 calibrations)"), m["machine"]
PY
"$model" merge "$dir/m3.json" > "$dir/one.json" && python3 -c 'import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["comm"] == b["comm"] and a["machine"] == b["machine"]' "$dir/one.json" "$dir/m3.json" \
    || fail "acpx-model merge of one file to stdout: $(cat "$dir/one.json")"
for bad in "$dir/m1.json $dir/other.json" "$dir/m1.json /nonexistent.json" "" "--out"; do
    # shellcheck disable=SC2086  # $bad is the argument list
    if "$model" merge $bad > "$dir/out" 2>&1; then fail "acpx-model merge $bad: accepted"; fi
    grep -q '^acpx-model merge: ' "$dir/out" || fail "acpx-model merge $bad: no message: $(cat "$dir/out")"
done
"$model" merge --help | grep -q '^usage: acpx-model merge ' || fail "acpx-model merge --help: no usage"
"$model" merge "$dir/m1.json" "$dir/other.json" 2>&1 | grep -q "other.json: not of the same runs as .*m1.json: its cores are" \
    || fail "acpx-model merge of other cores: no reason"

ACP_CALIBRATION="$dir/cal.json" run -v -n 2 "$ACPX_BUILDDIR/acpx-bench" bcast --quick --sizes 1K:1K \
    > /dev/null 2> "$dir/v.txt"
grep -q "collectives model: calibration $dir/cal.json" "$dir/v.txt" || fail "acprun -v: $(cat "$dir/v.txt")"
grep -q 'algorithm [a-z:0-9]* (model: ' "$dir/v.txt" || fail "acprun -v: no choice: $(cat "$dir/v.txt")"
# A file measured on another count of cores than the job's node has: -v names both.
python3 -c 'import json, sys; c = json.load(open(sys.argv[1])); c["cores"] = 64; json.dump(c, open(sys.argv[2], "w"))' \
    "$dir/cal.json" "$dir/cal64.json"
ACP_CALIBRATION="$dir/cal64.json" run -v -n 2 "$ACPX_BUILDDIR/acpx-bench" bcast --quick --sizes 1K:1K \
    > /dev/null 2> "$dir/v.txt"
grep -q "cal64.json, 64 cores (this node has $(getconf _NPROCESSORS_ONLN): " "$dir/v.txt" \
    || fail "acprun -v, 64 cores: $(cat "$dir/v.txt")"
env -u ACP_CALIBRATION XDG_CONFIG_HOME="$dir/none" "$ACPX_BUILDDIR/acprun" -v -n 2 "$ACPX_BUILDDIR/acpx-bench" bcast --quick \
    --sizes 1K:1K > /dev/null 2> "$dir/v.txt"
grep -q 'calibration built-in defaults' "$dir/v.txt" || fail "acprun -v without a file: $(cat "$dir/v.txt")"
# ACP_CALIBRATION=builtin: the defaults, though a file is in the user's
# place; acpx-model takes it as --calibration too.
mkdir -p "$dir/xdg/acpx" && cp "$dir/cal.json" "$dir/xdg/acpx/calibration.json"
ACP_CALIBRATION=builtin XDG_CONFIG_HOME="$dir/xdg" "$ACPX_BUILDDIR/acprun" -v -n 2 "$ACPX_BUILDDIR/acpx-bench" bcast \
    --quick --sizes 1K:1K > /dev/null 2> "$dir/v.txt"
grep -q 'calibration built-in defaults (ACP_CALIBRATION=builtin), ' "$dir/v.txt" || fail "ACP_CALIBRATION=builtin: $(cat "$dir/v.txt")"
XDG_CONFIG_HOME="$dir/xdg" "$ACPX_BUILDDIR/acpx-model" predict --algo chain --procs 3 --size 64K --calibration builtin \
    > "$dir/p.txt" 2>&1 && grep -q '^# topology: .*; calibration: built-in defaults, ' "$dir/p.txt" \
    || fail "acpx-model --calibration builtin: $(cat "$dir/p.txt")"
# The defaults take the CPUs the job's ranks may run on: one, under taskset.
env -u ACP_CALIBRATION XDG_CONFIG_HOME="$dir/none" taskset -c 0 "$ACPX_BUILDDIR/acprun" -v -n 2 \
    "$ACPX_BUILDDIR/acpx-bench" bcast --quick --sizes 1K:1K > /dev/null 2> "$dir/v.txt"
grep -q 'calibration built-in defaults (.*), 1 cores;' "$dir/v.txt" || fail "defaults on CPU 0: $(cat "$dir/v.txt")"
ACP_CALIBRATION="$dir/cal.json" "$ACPX_BUILDDIR/acpx-info" | grep -q "^  calibration: $dir/cal.json (" \
    || fail "acpx-info does not show the calibration in use"
ACP_CALIBRATION=/nonexistent.json "$ACPX_BUILDDIR/acpx-info" | grep -q '^  calibration: unusable: /nonexistent.json' \
    || fail "acpx-info does not say the calibration is unusable"
# The driver: each launch's measurements against the predictions of its
# own calibration (--predict-only: measured 0), a summary per process
# count; --replay predicts again from the saved launches alike.
python3 "$ACPX_SRCDIR/bench/model_check" "$ACPX_BUILDDIR" "$dir/mcd" --quick --np 2,3 > "$dir/mcd.txt" 2>&1 \
    || fail "bench/model_check: $(cat "$dir/mcd.txt")"
[ "$(grep -c ',3,' "$dir/mcd/model_check.csv")" -eq 26 ] || fail "model_check: want 26 rows at 3: $(cat "$dir/mcd/model_check.csv")"
grep -q ',2,65536,' "$dir/mcd/model_check.csv" || fail "model_check: no 2-process rows"
awk -F, 'NR > 1 && $5 != "0.000" { bad = 1 } END { exit bad }' "$dir/mcd/launches/np3-1-predicted.csv" \
    || fail "--predict-only measured something: $(cat "$dir/mcd/launches/np3-1-predicted.csv")"
[ -s "$dir/mcd/calibration.json" ] && grep -q '"switch_s"' "$dir/mcd/calibration-np3.json" \
    || fail "model_check: no merged calibrations"
grep -q '^# predicted best is the measured best' "$dir/mcd/model_check-np3.txt" || fail "model_check: no summary"
# The same measurements with the launches' merged calibration's and the
# built-in defaults' predictions: both figures for each, from predictions > 0.
for who in "the launches' merged calibration (calibration-np3.json" "the built-in defaults (ACP_CALIBRATION=builtin"; do
    grep -A2 -F "# $who" "$dir/mcd/model_check-np3.txt" | grep -c '^#   \(ratio within\|predicted best is\)' \
        | grep -qx 2 || fail "model_check: no summary for $who: $(cat "$dir/mcd/model_check-np3.txt")"
done
awk -F, 'NR > 1 && !($6 > 0) { bad = 1 } END { exit bad || NR < 27 }' "$dir/mcd/launches/np3-builtin-predicted.csv" \
    || fail "model_check: built-in predictions: $(cat "$dir/mcd/launches/np3-builtin-predicted.csv")"
cp "$dir/mcd/model_check.csv" "$dir/first.csv"
# A fixed count of launches, each counted (no launch is made again).
grep -q '^3 processes (1 launch):$' "$dir/mcd.txt" || fail "model_check: launches: $(cat "$dir/mcd.txt")"
python3 "$ACPX_SRCDIR/bench/model_check" "$ACPX_BUILDDIR" "$dir/mcd" --quick --np 2,3 --replay > "$dir/mcd.txt" 2>&1 \
    || fail "bench/model_check --replay: $(cat "$dir/mcd.txt")"
cmp -s "$dir/first.csv" "$dir/mcd/model_check.csv" || fail "--replay changed the rows"
# The summary's cost of the picks and its fixed-algorithm baselines, on
# three made-up launches alike: bcast 64K the model picks binomial, 2x the
# chain; bcast 128K binomial, the best; allgather 1K Bruck, 1.05x the tree.
python3 - "$ACPX_SRCDIR/bench/model_check" > "$dir/votes.txt" <<'PY' \
    || fail "model_check summary: $(cat "$dir/votes.txt")"
import importlib.machinery, importlib.util, io, sys
from collections import OrderedDict
loader = importlib.machinery.SourceFileLoader("model_check", sys.argv[1])
mc = importlib.util.module_from_spec(importlib.util.spec_from_loader("model_check", loader))
loader.exec_module(mc)
launch = OrderedDict([(("bcast", 65536), [("binomial", 2.0, 1.0), ("chain", 1.0, 2.0)]),
                      (("bcast", 131072), [("binomial", 1.0, 1.0), ("chain", 1.5, 2.0)]),
                      (("allgather", 1024), [("tree", 1.0, 2.0), ("bruck", 1.05, 1.0)])])
lines, _ = mc.summarize([launch] * 3, 3, io.StringIO())
want = ["# predicted best is the measured best or within 10%: 2 of 3 points",
        "# the predicted best's time over the measured best's (median of launches): 1.05 at the median point, "
        "2.00 at worst (bcast 65536)",
        "# bcast, one algorithm at every size instead, hits by the same vote: binomial (the default) 1, "
        "the best in hindsight binomial/chain 1; the model's picks 1, of 2 points",
        "# allgather, one algorithm at every size instead, hits by the same vote: tree (the default) 1, "
        "the best in hindsight tree/bruck 1; the model's picks 1, of 1 points",
        "# the launches among themselves: the measured best is one algorithm (or schedule) in every launch at "
        "3 of 3 points; one algorithm per point, chosen in hindsight, hits at 3"]
for w in want:
    if not any(l.startswith(w) for l in lines):
        sys.exit("missing %r in:\n%s" % (w, "\n".join(lines)))
# Two launches of three where binomial is the measured best at 64K: the
# launches disagree there, and binomial still wins the vote.
other = OrderedDict(launch)
other[("bcast", 65536)] = [("binomial", 1.0, 1.0), ("chain", 2.0, 2.0)]
lines, _ = mc.summarize([launch, other, other], 3, io.StringIO())
w = ("# the launches among themselves: the measured best is one algorithm (or schedule) in every launch at "
     "2 of 3 points; one algorithm per point, chosen in hindsight, hits at 3")
if w not in lines:
    sys.exit("missing %r in:\n%s" % (w, "\n".join(lines)))
# The band's reach: at 64K the two launches read binomial 2.0 and 1.0, the
# chain 1.0 and 2.0, so each as the other's prediction puts both out (two
# points a pair where one is the first launch, none between the others);
# the model puts 3 of the 4 points at >= 64K out in the first, 1 in the others.
w = ("# points out of band at >= 64 KiB (of 4), per launch: predicted from another launch's measured times, "
     "median 2 (0-2 over 6 pairs); by the model from its own calibration, median 1 (1-3 over 3 launches)")
if w not in lines:
    sys.exit("missing %r in:\n%s" % (w, "\n".join(lines)))
lines, _ = mc.summarize([launch], 3, io.StringIO())
if any(l.startswith("# points out of band") for l in lines):
    sys.exit("one launch has no other to predict it:\n%s" % "\n".join(lines))
PY
if python3 "$ACPX_SRCDIR/bench/model_check" "$ACPX_BUILDDIR" "$dir/empty" --replay > "$dir/out" 2>&1; then
    fail "--replay without launches: accepted"
fi
grep -q 'is missing' "$dir/out" || fail "--replay without launches: $(cat "$dir/out")"
echo "bench_model_quick: ok"
