#!/bin/sh
# The basic-layer suite, 3 ranks under acprun, UCX_TLS=tcp, and every copy
# through UCX (ACP_CMA=0), so the transport's own RMA path stays tested.
UCX_TLS=tcp; export UCX_TLS
ACP_CMA=0; export ACP_CMA
exec "$ACPX_SRCDIR/test/run-mp.sh" acprun 3 "$ACPX_BUILDDIR/test/basic/basic_test"
