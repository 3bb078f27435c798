#!/bin/sh
# as_two_nodes.sh PROGRAM [ARGS...], run by acprun for each rank: the upper
# half of the ranks run in a UTS namespace of their own with host name
# "acpx-node-b", so acpx takes them for a second node (its node id is the
# boot id, host name and pid namespace): no CMA and no mapped segments
# between the halves, and the model sees two nodes. Needs unshare(1) and
# the right to make the namespace (root); the suite checks first.
half=$(( ${ACP_RUN_PROCS:?run me under acprun} / 2 ))
if [ "${ACP_RUN_RANK:?run me under acprun}" -ge "$half" ]; then
    exec unshare --uts sh -c 'hostname acpx-node-b && exec "$@"' sh "$@"
fi
exec "$@"
