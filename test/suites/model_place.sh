#!/bin/sh
# acpx-model place from the command line (seed 000): the section 3 example
# evaluated and searched, a CG search on one of the seed's shapes with few
# trials, its map read back by --eval and by predict --map (ACP_TOPOLOGY_MAP's
# format), the same seed giving the same map; every bad input one line
# "acpx-model: place: ..." and exit 2.
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "model_place: $*"; exit 1; }
M="$ACPX_BUILDDIR/acpx-model"
last() { tail -n 1 "$1"; }

# Section 3: tasks 1..6 there are 0..5 here; 1 MiB both ways between each pair.
cat > "$dir/sec3.ccs" <<'EOF'
0 1
1 0
--
3 4
4 3
--
0 2
2 0
3 5
5 3
--
0 5
5 0
1 3
3 1
2 4
4 2
EOF
printf '0\n0\n0\n1\n1\n1\n' > "$dir/first.map"
printf '0\n1\n0\n1\n0\n1\n' > "$dir/second.map"
"$M" place --pattern "ccs:$dir/sec3.ccs" --topology mesh:2 --eval "$dir/first.map" > "$dir/first.txt"
"$M" place --pattern "ccs:$dir/sec3.ccs" --topology mesh:2 --eval "$dir/second.map" > "$dir/second.txt"
# 6 M/B and 4 M/B (M = 2^20, B = 5e9), the same byte-hops.
[ "$(last "$dir/first.txt")" = "# eq1 0.0012582912 eq2 6291456 eq3 1.97912093e+13 max_coll 3" ] ||
    fail "first placement: $(last "$dir/first.txt")"
[ "$(last "$dir/second.txt")" = "# eq1 0.0008388608 eq2 6291456 eq3 1.97912093e+13 max_coll 1" ] ||
    fail "second placement: $(last "$dir/second.txt")"
"$M" place --pattern "ccs:$dir/sec3.ccs" --topology mesh:2 --per-node 3 --method tac3 --trials 200 \
    --out "$dir/sec3.map" > "$dir/sec3.txt" || fail "section 3 search: exit $?"
last "$dir/sec3.txt" | grep -q '^# eq1 0.0008388608 ' || fail "section 3 search: $(last "$dir/sec3.txt")"

# The map for SimGrid: a platform of the two hosts and a hostfile of the six ranks.
"$M" place --pattern "ccs:$dir/sec3.ccs" --topology mesh:2 --eval "$dir/second.map" --simgrid "$dir" > /dev/null ||
    fail "--simgrid: exit $?"
[ "$(cat "$dir/hostfile" | tr '\n' ' ')" = "n0 n1 n0 n1 n0 n1 " ] || fail "--simgrid: hostfile $(cat "$dir/hostfile")"
grep -q '<route src="n0" dst="n1" symmetrical="NO"><link_ctn id="up0"/><link_ctn id="l0_0+"/></route>' \
    "$dir/platform.xml" || fail "--simgrid: no route n0 -> n1 in platform.xml"

# CG on 32 tasks, shape 4 of the seed, few trials: a map of 32 distinct nodes.
T='torus:1x2x2x2x3x2:order=XYZACB:wrap=000010'
for s in 1 1 2; do
    "$M" place --pattern cg:32 --topology "$T" --method tac3 --trials 100 --seed $s --out "$dir/cg$s.map" \
        >> "$dir/cg$s.txt" || fail "cg:32 search: exit $?"
done
grep -q '^# accepted % per level:' "$dir/cg1.txt" || fail "no acceptance rates"
[ "$(grep -v '^#' "$dir/cg1.map" | sort -u | wc -l)" -eq 32 ] || fail "cg:32: not 32 distinct nodes"
a=$(tail -n 1 "$dir/cg1.txt")
[ "$(grep -c '^# eq1' "$dir/cg1.txt")" -eq 2 ] && [ "$(grep '^# eq1' "$dir/cg1.txt" | sort -u | wc -l)" -eq 1 ] ||
    fail "seed 1 twice: different maps"
"$M" place --pattern cg:32 --topology "$T" --eval "$dir/cg1.map" > "$dir/eval.txt"
[ "$(last "$dir/eval.txt")" = "$a" ] || fail "--eval of the map: $(last "$dir/eval.txt") vs $a"
"$M" predict --algo ring --procs 32 --size 1M --topology "$T" --map "$dir/cg1.map" > /dev/null ||
    fail "predict --map cannot read the map"
for m in tac3-ports tahb o2f no-ring no-ring-c; do
    "$M" place --pattern cg:32 --topology "$T" --method $m --trials 20 > "$dir/$m.txt" || fail "$m: exit $?"
    last "$dir/$m.txt" | grep -Eq '^# eq1 [0-9.e+-]+ eq2 [0-9.e+-]+ eq3 [0-9.e+-]+ max_coll [0-9]+$' ||
        fail "$m: $(last "$dir/$m.txt")"
done

# The flow simulator on the section 3 example, second placement, one
# iteration. Steps 1 and 2 share no task, so they run together, and both
# cross the link each way: alpha + 2M/B. Step 3 follows them, step 4 step
# 3, each alpha + M/B: 3 alpha + 4M/B (M/B = 209.7152 us). Behind
# barriers the steps run one by one: 4 alpha + 3 beta + 4M/B.
"$M" flowsim --pattern "ccs:$dir/sec3.ccs" --topology mesh:2 --map "$dir/second.map" --iterations 1 \
    > "$dir/flow.txt" || fail "flowsim: exit $?"
[ "$(last "$dir/flow.txt")" = "# seconds 0.0009798608" ] || fail "flowsim: $(last "$dir/flow.txt")"
"$M" flowsim --pattern "ccs:$dir/sec3.ccs" --topology mesh:2 --map "$dir/second.map" --iterations 1 --barrier \
    > "$dir/flow.txt" || fail "flowsim --barrier: exit $?"
[ "$(last "$dir/flow.txt")" = "# seconds 0.0010388608" ] || fail "flowsim --barrier: $(last "$dir/flow.txt")"
st=0
"$M" flowsim --pattern cg:64 --topology "$T" > /dev/null 2>&1 || st=$?
[ "$st" -eq 2 ] || fail "flowsim, 64 tasks on 48 nodes without a map: exit $st, want 2"

# Seed 000's reproduction, small: shapes 3 and 4, 2 maps, 100 trials a level, 10 iterations.
"$M" seed000 --shapes 3,4 --maps 2 --trials 100 --iterations 10 --simgrid-iterations 10 --out "$dir" \
    > "$dir/seed000.txt" || fail "seed000: exit $?"
head -n 1 "$dir/seed000.csv" |
    grep -qx 'shape,method,map,seed,eq1_s,eq2_byte_hops,eq3,max_coll,seconds,seconds_barrier,solve_s,simgrid_s,simgrid_barrier_s,flowsim_short_s,flowsim_short_barrier_s' ||
    fail "seed000.csv: bad header"
[ "$(grep -c '^[34],' "$dir/seed000.csv")" -eq 28 ] || fail "seed000.csv: want 28 rows (2 shapes x (2 no-ring + 6 methods x 2))"
for line in '^| 3 1x1x4x2x3x2 |' '^| 4 1x2x2x2x3x2 |' '^- TAC3 faster than TAHB and O2F in every shape: \*\*' \
    '^Gate (shapes 2-4, every TAC3 map collision-free): \*\*' '^| 2048 | '; do
    grep -q "$line" "$dir/seed000.md" || fail "seed000.md: no line $line"
done
# SimGrid (Debian's libsimgrid-dev, which the README's test command
# installs) runs every map; the simulators agree within 10% on these
# shapes' small maps.
if command -v smpirun > /dev/null; then
    for s in 3 4; do
        grep -Eq "^\| $s \| 16 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| 16 of 16 \|$" "$dir/seed000.md" ||
            fail "seed000.md: shape $s: SimGrid and the flow simulator disagree: $(grep "^| $s | 16 |" "$dir/seed000.md")"
    done
else
    grep -q '^Not run: smpirun was not found' "$dir/seed000.md" || fail "seed000.md: SimGrid neither run nor said not run"
fi

# The collision model against the simulators, small: seed 003's 2x3x4
# torus, the allgathers, 64-256 KiB. The ring's steps collide nowhere: the
# model prices it as both simulators time it; every row has all three.
if command -v smpirun > /dev/null; then sg=; else sg=--no-simgrid; fi
"$M" simcheck --topology torus:2x3x4 --op allgather --sizes 64K:256K --out "$dir" $sg > "$dir/simcheck.txt" ||
    fail "simcheck: exit $?"
head -n 1 "$dir/simcheck.csv" |
    grep -qx 'topology,op,algo,procs,size,predicted_us,flowsim_steps_us,flowsim_flows_us,simgrid_us' ||
    fail "simcheck.csv: bad header"
awk -F, -v sg="$sg" 'NR > 1 { n++; if ($3 == "ring") { r = $6 / $7; if (r < 0.95 || r > 1.05) bad = bad " ring/flowsim " r }
        if (sg == "") { q = $9 / $7; if (q < 0.9 || q > 1.1) bad = bad " " $3 "@" $5 " simgrid/flowsim " q } }
    END { if (n != 15) bad = bad " rows " n; if (bad != "") { print bad; exit 1 } }' "$dir/simcheck.csv" ||
    fail "simcheck.csv: $(awk -F, 'NR > 1' "$dir/simcheck.csv" | head -3)"
grep -q '^| `torus:2x3x4` | allgather | 15 |' "$dir/simcheck.md" || fail "simcheck.md: no summary row"

# Bad inputs: one line each, naming the problem, exit 2.
printf '0 1 100\n1 0 100\n' > "$dir/matrix"
printf '0\n1\n99\n' > "$dir/nodes"
printf '0 send 1\n1 recv 0\n1 send 0\n' > "$dir/bad.log"
printf '0 1\n0 2\n' > "$dir/twice.ccs"
bad() {
    want=$1
    shift
    st=0
    "$M" place "$@" > "$dir/out" 2> "$dir/err" || st=$?
    [ "$st" -eq 2 ] || fail "$*: exit $st, want 2"
    [ "$(wc -l < "$dir/err")" -eq 1 ] || fail "$*: not one line: $(cat "$dir/err")"
    grep -q "^acpx-model: place: .*$want" "$dir/err" || fail "$*: $(cat "$dir/err") (want '$want')"
}
bad "--topology: '2xq': dimension 'q' is not a size" --pattern cg:32 --topology torus:2xq --method tac3
bad "48 node slots (48 nodes x 1) for 64 tasks" --pattern cg:64 --topology "$T" --method tac3
bad "nodes:3: '99' is not a node index below 48" --pattern cg:32 --topology "$T" --nodes "$dir/nodes" --method tac3
bad "CCS 0: task 0 sends twice; use tac3-ports" --pattern "ccs:$dir/twice.ccs" --topology mesh:3 --method tac3
bad "has no CCS" --pattern "matrix:$dir/matrix" --topology mesh:2 --method tac3
bad "power of two" --pattern cg:24 --topology "$T" --method tahb
bad "T0 must exceed Tend" --pattern cg:32 --topology "$T" --method tac3 --t0 1e-9
bad "the cooling factor must lie in (0, 1)" --pattern cg:32 --topology "$T" --method tac3 --factor 1.5
bad "trials per temperature must be at least 1" --pattern cg:32 --topology "$T" --method tac3 --trials 0
bad "bad.log: task 1: send 0 (line 3): no matching receive at task 0" --pattern "log:$dir/bad.log" --topology mesh:2 \
    --method tahb
bad "give --method" --pattern cg:32 --topology "$T"
"$M" place --pattern "matrix:$dir/matrix" --topology mesh:2 --method tahb > /dev/null || fail "tahb on a matrix"
echo "model_place: ok"
