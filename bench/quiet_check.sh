#!/bin/sh
# Whether the machine is quiet before a measurement: the share of all CPUs
# busy over SECONDS (default 2), from /proc/stat, and when it is over
# LIMIT percent (default 10) a WARNING with the busiest processes. A
# process spinning on one core stalls any copy that needs both sides
# running (a staged ring stalled 4 ms per switch under one), so a main job
# on a busy machine says so at its top. A busy machine is not an error
# (status 0); a bad argument is (status 2).
#   quiet_check.sh [SECONDS [LIMIT]]
set -eu
secs=${1:-2} limit=${2:-10}
for v in "$secs" "$limit"; do
    case $v in
        '' | *[!0-9]*) echo "quiet_check.sh: '$v' is not a whole number (usage: quiet_check.sh [SECONDS [LIMIT]])" >&2
                       exit 2 ;;
    esac
done
# user nice system idle iowait irq softirq steal: busy = all but idle and iowait.
sample() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
a=$(sample)
sleep "$secs"
b=$(sample)
busy=$(echo "$a $b" | awk '{ d = ($3 - $1) + ($4 - $2); printf "%d", (d > 0 ? 100 * ($3 - $1) / d : 0) }')
echo "# machine: ${busy}% of $(nproc) CPUs busy over ${secs} s before the measurements"
if [ "$busy" -gt "$limit" ]; then
    echo "# WARNING: over ${limit}%: the figures below may be slow; the busiest processes:"
    # %CPU is over each process's life: a spinner shows near 100.
    ps -eo pid,pcpu,comm --sort=-pcpu | sed -n '2,6p' | sed 's/^/#   /'
fi
exit 0
