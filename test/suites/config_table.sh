#!/bin/sh
# One table of configuration variables (basic/config.cpp):
#  - the README's Configuration table and acp.h's Environment list name
#    exactly the variables acpx-info --variables prints;
#  - no layer reads an ACP_* variable past it (basic::config_env), and
#    every ACP_* name the code quotes is in it (ACP_RUN_*: acprun's own,
#    between the launcher and its ranks, basic/bootstrap/wire.hpp).
set -u
src=$ACPX_SRCDIR
fail=0
table=$("$ACPX_BUILDDIR/acpx-info" --variables | sort) || { echo "acpx-info --variables failed"; exit 1; }
[ -n "$table" ] || { echo "acpx-info --variables printed nothing"; exit 1; }
readme=$(sed -n '/^## Configuration/,/^## /p' "$src/README.md" | sed -n 's/^| `\(ACP_[A-Z_]*\)` |.*/\1/p' | sort)
if [ "$table" != "$readme" ]; then
    echo "README.md's Configuration table and acpx-info --variables differ (<: the table, >: the README):"
    diff "$(printf '%s\n' "$table" > /tmp/acpx_cfg_t.$$; echo /tmp/acpx_cfg_t.$$)" \
         "$(printf '%s\n' "$readme" > /tmp/acpx_cfg_r.$$; echo /tmp/acpx_cfg_r.$$)"
    rm -f /tmp/acpx_cfg_t.$$ /tmp/acpx_cfg_r.$$
    fail=1
fi
header=$(sed -n '1,/^#/p' "$src/include/acp.h" | sed -n 's/^ \*   \(ACP_[A-Z_]*\) .*/\1/p' | sort)
if [ "$table" != "$header" ]; then
    echo "acp.h's Environment list and acpx-info --variables differ (<: the table, >: acp.h):"
    printf '%s\n' "$table" > /tmp/acpx_cfg_t.$$; printf '%s\n' "$header" > /tmp/acpx_cfg_h.$$
    diff /tmp/acpx_cfg_t.$$ /tmp/acpx_cfg_h.$$
    rm -f /tmp/acpx_cfg_t.$$ /tmp/acpx_cfg_h.$$
    fail=1
fi
cd "$src" || exit 1
raw=$(grep -rn 'getenv("ACP_' basic middle collectives tools | grep -v '^basic/config.cpp:')
if [ -n "$raw" ]; then
    echo "ACP_* variables read past the table (use basic::config_env):"
    echo "$raw"
    fail=1
fi
for name in $(grep -rhoE '"ACP_[A-Z_]+"' basic middle collectives tools bench | tr -d '"' | sort -u); do
    case $name in ACP_RUN_*) continue ;; esac
    printf '%s\n' "$table" | grep -qx "$name" || { echo "$name is quoted in the code but not in the table"; fail=1; }
done
[ "$fail" = 0 ] && echo "config_table: $(printf '%s\n' "$table" | wc -l) variables; README, acp.h and code agree"
exit "$fail"
