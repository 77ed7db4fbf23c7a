#!/bin/sh
# tests/e2e_version_dirty.sh — the commit a build records (posbench --version, every run file):
# the Makefile marks it -dirty when a tracked file differs from HEAD or when a source file git
# does not track is in the tree (the build may have compiled it). Read from `make -n`, which
# prints the recipe of build/git_commit.c without building. Needs a clean checkout (CI's fresh
# clone); in a tree with changes it says SKIP. The untracked file is planted in a clone of HEAD.
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
# The untracked file goes into a clone of HEAD, never into this tree, so the test changes nothing
# the tests beside it build from or run (make build/posbench here would see it, mark the build
# -dirty and relink build/posbench).
T=$(mktemp -d /tmp/posbench-version-dirty.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
if ! git clone -q --shared --no-checkout . "$T/clone" 2> "$T/err" || ! git -C "$T/clone" checkout -q --detach HEAD 2>> "$T/err"; then
    echo "FAIL version dirty: cannot clone this checkout into $T/clone: $(head -c 300 "$T/err")"
    exit 0
fi
echo "int zz_version_probe;" > "$T/clone/core/zz_version_probe.c"
dirty=$(cd "$T/clone" && commit_of)
case "$dirty" in
*-dirty) echo "PASS an untracked source file in the tree marks the commit -dirty: $dirty" ;;
*) echo "FAIL an untracked source file left the commit '$dirty' (no -dirty)" ;;
esac
