#!/bin/sh
# tests/e2e_version_dirty.sh — the commit a build records (posbench --version, every run file):
# the Makefile marks it -dirty when a tracked file differs from HEAD or when a source file git
# does not track is in the tree (the build may have compiled it). Read from `make -n`, which
# prints the recipe of build/git_commit.c without building. Needs a clean checkout (CI's fresh
# clone); in a tree with changes it says SKIP.
cd "$(dirname "$0")/.." || exit 1
# the recipe is printf 'FORMAT' 'COMMIT' > ...: the commit is the quoted word after the format
commit_of() { make -n build/git_commit.c 2>/dev/null | tr -d '\\\n' | sed -n "s/.*%s\";[^']*' *'\([^']*\)'.*/\1/p"; }
if ! command -v git > /dev/null 2>&1 || ! git rev-parse HEAD > /dev/null 2>&1; then
    echo "SKIP version dirty: not a git checkout"
    exit 0
fi
if ! git diff --quiet HEAD || [ -n "$(git ls-files --others --exclude-standard -- '*.c' '*.h' '*.cu' '*.cuh' '*.cpp' Makefile)" ]; then
    echo "SKIP version dirty: this tree already has changes (the check needs a clean checkout)"
    exit 0
fi
clean=$(commit_of)
case "$clean" in
"$(git rev-parse --short=12 HEAD)") echo "PASS a clean checkout records its commit without -dirty: $clean" ;;
*) echo "FAIL a clean checkout records '$clean', want $(git rev-parse --short=12 HEAD)" ;;
esac
probe=core/zz_version_probe_$$.c
trap 'rm -f "$probe"' EXIT
echo "int zz_version_probe;" > "$probe"
dirty=$(commit_of)
rm -f "$probe"
case "$dirty" in
*-dirty) echo "PASS an untracked source file in the tree marks the commit -dirty: $dirty" ;;
*) echo "FAIL an untracked source file left the commit '$dirty' (no -dirty)" ;;
esac
