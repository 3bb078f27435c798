#!/bin/sh
# Checks that #include lines point down the layers only (README.md,
# "Layout"):
#   include/      the public headers: none of acpx's internals
#   basic/        itself
#   collectives/  itself: pure functions, no transport, no runtime
#   middle/       basic/ and collectives/
#   tools/        any layer (programs, above every layer)
#   bench/        the public API; a file that includes an internal header
#                 says why in the comment at its top, naming "internal
#                 headers"
# A quoted include is resolved as the compiler would (next to the file,
# then from the top of the tree) and its layer is the first folder of
# the resolved path. Prints each violation; exits 1 if there is one.
# Usage: check-layers.sh [SRCDIR]
set -u
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 2
allowed() {  # layer -> the layers it may include, besides itself
    case $1 in
        include) echo "" ;;
        basic) echo "include" ;;
        collectives) echo "include" ;;
        middle) echo "include basic collectives" ;;
        tools) echo "include basic collectives middle" ;;
        bench) echo "include" ;;
    esac
}
bad=0
for layer in include basic collectives middle tools bench; do
    [ -d "$layer" ] || continue
    ok=$(allowed "$layer")
    files=$(find "$layer" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.ipp' \) | sort)
    for f in $files; do
        dir=$(dirname "$f")
        excused=0
        if [ "$layer" = bench ] && awk '!/^\/\//{exit} 1' "$f" | grep -qi 'internal headers'; then excused=1; fi
        for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
            if [ -e "$dir/$inc" ]; then
                resolved=$(realpath -m --relative-to=. "$dir/$inc")
            elif [ -e "$inc" ]; then
                resolved=$(realpath -m --relative-to=. "$inc")
            else
                continue  # generated (acpx_config.h) or a system header in quotes
            fi
            to=${resolved%%/*}
            [ "$to" = "$layer" ] && continue
            case " $ok " in *" $to "*) continue ;; esac
            [ "$excused" = 1 ] && continue
            echo "check-layers: $f includes $resolved: $layer/ may include only its own files${ok:+ and $ok}"
            bad=1
        done
    done
done
[ "$bad" = 0 ] && echo "check-layers: every include points down the layers"
exit "$bad"
