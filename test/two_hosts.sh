#!/bin/sh
# Two emulated hosts on this machine, for the suites that run a job across
# nodes: two network namespaces joined by a veth pair with private
# addresses, each host with its own host name (UTS namespace), boot id
# (a mount namespace where /proc/sys/kernel/random/boot_id is a file of its
# own) and CPUs (half of this process's each, where it has two or more).
# acpx takes them for two nodes, and so does UCX, which tells
# machines apart by boot id: with a shared one it uses shared memory
# between the "hosts" (and each operation waits ~100 ms). Hosts that
# shared every CPU would each count a core per rank at 2 + 2 ranks on 2
# CPUs, and the ranks would spin for what their peers, descheduled, had
# yet to send: 2 + 2 allgathers of 8 B-4 KiB took 390-570 us, not 50-85.
#   two_hosts.sh up DIR        makes the hosts; their state lives in DIR
#   two_hosts.sh down DIR      removes them (whatever state is left)
#   two_hosts.sh rank DIR PROGRAM [ARGS...]
#                              run by the launcher for each rank: the lower
#                              half of the ranks (ACP_RUN_RANK of
#                              ACP_RUN_PROCS, or OMPI_COMM_WORLD_*) on host
#                              a, the upper half on host b; execs PROGRAM
#                              there without forking, so the launcher keeps
#                              its pid and signals.
#   two_hosts.sh host DIR a|b PROGRAM [ARGS...]   PROGRAM on one host
#   two_hosts.sh link DIR up|down   the veth pair between the hosts
#   two_hosts.sh pids DIR a|b       the processes on a host, one a line
#   two_hosts.sh net DIR a|b PROGRAM [ARGS...]
#                              PROGRAM in one host's network only: where
#                              Open MPI's mpirun runs, to reach both hosts'
#                              daemons (it launches them on both through
#                              `rsh`, as on a cluster's login node)
#   two_hosts.sh rsh DIR HOST COMMAND...   (also DIR/rsh HOST COMMAND...)
#                              a remote shell for mpirun (plm_rsh_agent):
#                              COMMAND, a shell command line, on HOST
#                              (acpx-host-a or acpx-host-b)
# Traffic goes only between the two namespaces' own addresses
# (10.231.0.1 on a, 10.231.0.2 on b). Needs root (ip, unshare, nsenter);
# `up` exits 77 where namespaces cannot be made, for the suite to skip.
set -eu
cmd=${1:?usage: two_hosts.sh up|down|rank|host DIR ...}
dir=${2:?usage: two_hosts.sh up|down|rank|host DIR ...}
shift 2

# The namespaces' names, from the state directory's: one bed per suite run.
tag=$(basename "$dir" | tr -cd 'a-zA-Z0-9' | tail -c 8)
ns_a="acpx-$tag-a" ns_b="acpx-$tag-b"

enter() {  # enter a|b PROGRAM [ARGS...]: the host's names, boot id, network and CPUs
    h=$1; shift
    eval ns=\$ns_"$h"
    # ip netns exec remounts /sys for the network namespace (UCX lists its
    # devices there); it runs in the host's mount namespace, so the boot
    # id stays bound. taskset, like the others, execs what it runs.
    set -- nsenter --mount="$dir/mnt.$h" --uts="$dir/uts.$h" --wd="$PWD" -- ip netns exec "$ns" "$@"
    cpus=$(cat "$dir/cpus.$h" 2>/dev/null || true)
    if [ -n "$cpus" ]; then exec taskset -c "$cpus" "$@"; else exec "$@"; fi
}

# This process's CPUs, one a line (taskset lists them as "0-3,6").
own_cpus() {
    taskset -cp $$ | sed 's/.*: //' | tr ',' '\n' | while IFS=- read -r lo hi; do
        seq "$lo" "${hi:-$lo}"
    done
}

case "$cmd" in
up)
    for tool in ip unshare nsenter taskset; do
        command -v "$tool" >/dev/null 2>&1 || { echo "two_hosts.sh: $tool not found"; exit 77; }
    done
    mkdir -p "$dir"
    # Persistent namespaces are bound to files on a private mount.
    mount --bind "$dir" "$dir" 2>/dev/null && mount --make-private "$dir" \
        || { echo "two_hosts.sh: cannot make a private mount at $dir (not root?)"; exit 77; }
    for h in a b; do
        eval ns=\$ns_"$h"
        ip netns add "$ns" 2>/dev/null || { echo "two_hosts.sh: cannot add network namespace $ns"; exit 77; }
        cat /proc/sys/kernel/random/uuid > "$dir/boot_id.$h"
        touch "$dir/uts.$h" "$dir/mnt.$h"
        unshare --uts="$dir/uts.$h" hostname "acpx-host-$h"
        unshare --mount="$dir/mnt.$h" --propagation private \
            mount --bind "$dir/boot_id.$h" /proc/sys/kernel/random/boot_id
    done
    # Each host its half of the CPUs (with one, both share it).
    cpus=$(own_cpus)
    n=$(printf '%s\n' "$cpus" | wc -l)
    if [ "$n" -ge 2 ]; then
        printf '%s\n' "$cpus" | head -n $((n / 2)) | paste -sd, - > "$dir/cpus.a"
        printf '%s\n' "$cpus" | tail -n $((n - n / 2)) | paste -sd, - > "$dir/cpus.b"
    fi
    # DIR/rsh: the remote shell as one program, for launchers that take a
    # path (MPICH's -launcher-exec) as well as those that take a command.
    printf '#!/bin/sh\nexec sh "%s" rsh "%s" "$@"\n' "$(cd "$(dirname "$0")" && pwd)/two_hosts.sh" "$dir" > "$dir/rsh"
    chmod +x "$dir/rsh"
    ip link add "acpx${tag}a" type veth peer name "acpx${tag}b"
    ip link set "acpx${tag}a" netns "$ns_a"
    ip link set "acpx${tag}b" netns "$ns_b"
    ip -n "$ns_a" addr add 10.231.0.1/24 dev "acpx${tag}a"
    ip -n "$ns_b" addr add 10.231.0.2/24 dev "acpx${tag}b"
    for h in a b; do
        eval ns=\$ns_"$h"
        ip -n "$ns" link set lo up
        ip -n "$ns" link set "acpx${tag}$h" up
    done
    ;;
down)
    for h in a b; do
        eval ns=\$ns_"$h"
        ip netns delete "$ns" 2>/dev/null || true  # the veth pair goes with it
        umount "$dir/uts.$h" "$dir/mnt.$h" 2>/dev/null || true
    done
    umount "$dir" 2>/dev/null || true
    rm -rf "$dir"
    ;;
rank)
    rank=${ACP_RUN_RANK:-${OMPI_COMM_WORLD_RANK:?run me under a launcher}}
    procs=${ACP_RUN_PROCS:-${OMPI_COMM_WORLD_SIZE:?run me under a launcher}}
    if [ "$rank" -ge $((procs / 2)) ]; then enter b "$@"; else enter a "$@"; fi
    ;;
host)
    h=${1:?two_hosts.sh host DIR a|b PROGRAM...}
    shift
    case "$h" in a | b) enter "$h" "$@" ;; *) echo "two_hosts.sh: host a or b, not $h" >&2; exit 2 ;; esac
    ;;
link)
    case "${1:-}" in up | down) ;; *) echo "two_hosts.sh: link up or down" >&2; exit 2 ;; esac
    ip -n "$ns_a" link set "acpx${tag}a" "$1"
    ;;
pids)
    case "${1:-}" in a | b) ;; *) echo "two_hosts.sh: host a or b" >&2; exit 2 ;; esac
    eval ns=\$ns_"$1"
    ip netns pids "$ns"
    ;;
net)
    h=${1:?two_hosts.sh net DIR a|b PROGRAM...}
    shift
    case "$h" in a | b) ;; *) echo "two_hosts.sh: host a or b, not $h" >&2; exit 2 ;; esac
    eval ns=\$ns_"$h"
    # Not ip netns exec: its mount namespace would not hold the hosts'
    # (the kernel copies no mount-namespace files into a new one), and the
    # remote shell below enters them from here. mpirun lists interfaces
    # through netlink, not /sys.
    exec nsenter --net="/run/netns/$ns" -- "$@"
    ;;
rsh)
    host=${1:?two_hosts.sh rsh DIR HOST COMMAND...}
    shift
    case "$host" in
    acpx-host-a | 10.231.0.1) enter a sh -c "$*" ;;
    acpx-host-b | 10.231.0.2) enter b sh -c "$*" ;;
    *) echo "two_hosts.sh: rsh: no host $host here (acpx-host-a, acpx-host-b)" >&2; exit 2 ;;
    esac
    ;;
*)
    echo "two_hosts.sh: $cmd: want up, down, rank, host, link, pids, net or rsh" >&2
    exit 2
    ;;
esac
