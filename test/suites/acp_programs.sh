#!/bin/sh
# ACP-style C programs (acp.h only, as ACP's samples), built as a user
# builds them: by the installed acpcc (this build installed into a scratch
# directory, found there by ACPX_PREFIX), then each run under acprun at 3
# ranks on UCX, then on libfabric's TCP where it is built.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$(sed -n 's/^prefix = //p' "$ACPX_BUILDDIR/Makefile")
if ! make -s -C "$ACPX_BUILDDIR" install DESTDIR="$tmp/root" > "$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"; echo "FAILED: make install"; exit 1
fi
root=$tmp/root$prefix
# A sanitized libacpx needs its runtime in the program too.
grep -q '^ACPX_LDFLAGS = .*-fsanitize' "$ACPX_BUILDDIR/Makefile" && export ACPX_CC="gcc -fsanitize=address,undefined"
fail=0
for prog in global_memory channel_ring segbuf_stream; do
    if ! ACPX_PREFIX=$root "$root/bin/acpcc" -std=c11 -Wall -Wextra -Werror -o "$tmp/$prog" \
        "$ACPX_SRCDIR/test/programs/$prog.c"; then
        echo "FAILED: acpcc $prog.c"; fail=1; continue
    fi
    for transport in ucx ofi; do
        case "$transport" in
            ofi) "$ACPX_BUILDDIR/acpx-info" 2>/dev/null | grep -q 'transports built in:.*ofi' || continue
                 env="ACP_TRANSPORT=ofi FI_PROVIDER=tcp;ofi_rxm" ;;
            *) env="ACP_TRANSPORT=ucx" ;;
        esac
        if ! env $env ACP_TIMEOUT=60 "$ACPX_BUILDDIR/acprun" -n 3 "$tmp/$prog"; then
            echo "FAILED: $prog on $transport"
            fail=1
        fi
    done
done
exit $fail
