#!/bin/sh
# Every #include points down the layers (scripts/check-layers.sh).
exec sh "$ACPX_SRCDIR/scripts/check-layers.sh" "$ACPX_SRCDIR"
