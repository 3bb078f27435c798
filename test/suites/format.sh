#!/bin/sh
# Every C and C++ file of the tree is as clang-format (.clang-format)
# writes it: the style is the tool's, not a reviewer's.
set -eu
cd "$ACPX_SRCDIR"
if [ ! -d .git ] || ! command -v git >/dev/null 2>&1; then
    echo "format: not a git work tree: nothing to list the files by"; exit 77
fi
command -v clang-format >/dev/null 2>&1 || { echo "format: clang-format not installed"; exit 77; }
bad=$(git ls-files '*.cpp' '*.hpp' '*.h' '*.c' '*.ipp' | grep -v '^m4/' | while read -r f; do
    clang-format --dry-run -Werror "$f" > /dev/null 2>&1 || echo "$f"
done)
if [ -n "$bad" ]; then
    echo "format: not as clang-format writes them (clang-format -i FILE):"
    echo "$bad"
    exit 1
fi
# Comments too keep to the 120 columns (clang-format leaves them as written).
long=$(git ls-files '*.cpp' '*.hpp' '*.h' '*.c' '*.ipp' | grep -v '^m4/' | xargs awk 'length > 120 { print FILENAME ":" FNR }')
[ -z "$long" ] || { echo "format: lines over 120 columns:"; echo "$long"; exit 1; }
echo "format: $(git ls-files '*.cpp' '*.hpp' '*.h' '*.c' '*.ipp' | grep -vc '^m4/') files as clang-format writes them"
