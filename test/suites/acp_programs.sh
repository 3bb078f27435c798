#!/bin/sh
# ACP-style C programs (acp.h only, as ACP's samples), each under acprun
# at 3 ranks on UCX, then on libfabric's TCP where it is built.
set -u
fail=0
for prog in global_memory channel_ring; do
    for transport in ucx ofi; do
        case "$transport" in
            ofi) "$ACPX_BUILDDIR/acpx-info" 2>/dev/null | grep -q 'transports built in:.*ofi' || continue
                 env="ACP_TRANSPORT=ofi FI_PROVIDER=tcp;ofi_rxm" ;;
            *) env="ACP_TRANSPORT=ucx" ;;
        esac
        if ! env $env ACP_TIMEOUT=60 "$ACPX_BUILDDIR/acprun" -n 3 "$ACPX_BUILDDIR/test/programs/$prog"; then
            echo "FAILED: $prog on $transport"
            fail=1
        fi
    done
done
exit $fail
