#!/bin/sh
# tests/e2e_add_method.sh — adding a position encoding by docs/architecture.md's checklist
# ("Adding a position encoding") touches the files the checklist names and no others. In a copy
# of the tree (tracked and new files, and build/'s objects so the build is incremental) under a
# fresh git repository, it adds pe.kind=fixedtab, a fixed (T, d) table added to every patch token
# (not learned; a deterministic pattern of the token and channel index), the way the checklist
# says: its module models/posenc/fixedtab.c and one X(fixedtab) in the POSENC_KINDS table, found
# in the file the page's Registries paragraph names; then `make docs`, which the checklist's
# last step asks for. It checks that
#   - the tree builds, tests/test_registries passes (no name compared outside its module, the
#     key table, the registries' rules) and one training step with pe.kind=fixedtab writes its
#     run file, whose /config says pe.kind=fixedtab;
#   - `posbench train --help pe.kind` lists the new kind with its description (the help is made
#     from the registry, not written by hand);
#   - `git status` in the copy shows exactly the files the checklist names: every changed or
#     new file is named in the checklist's section (with <name> for the kind's name) or is the
#     registry's file, and the module and the registry's file are among them.
# A checklist that goes stale (the registry moved to another file, a step that needs one more
# file, a file the page no longer names) fails here. Slow: it rebuilds every object that
# includes the encoding registry (most of the C sources; not the CUDA ones).
cd "$(dirname "$0")/.." || exit 1
PAGE=docs/architecture.md
check() { if [ "$2" -eq 0 ]; then echo "PASS add encoding: $1"; else echo "FAIL add encoding: $1: $3"; fi; }
for tool in git tar make python3 h5dump; do
    command -v $tool > /dev/null 2>&1 || { echo "SKIP add encoding: $tool missing"; exit 0; }
done
[ -f build/libposbench.a ] && [ -x build/posbench ] || { echo "SKIP add encoding: build/posbench is not built (make)"; exit 0; }
T=$(mktemp -d /tmp/posbench-addenc.XXXXXX) || exit 1
[ -n "$KEEP_T" ] || trap 'rm -rf "$T"' EXIT
export POSBENCH_PROGRESS=plain

# The registry's file, as the page names it (`POSENC_KINDS` in models/posenc/encoding.h).
REG=$(tr '\n' ' ' < "$PAGE" | sed -n 's/.*`POSENC_KINDS`[[:space:]]*in[[:space:]]*\([A-Za-z0-9_/.]*\.h\).*/\1/p')
[ -n "$REG" ] && [ -f "$REG" ] && grep -q '^#define POSENC_KINDS(X)' "$REG"
check "the page names the file that defines POSENC_KINDS" $? "page says '${REG:-nothing}'"
[ -n "$REG" ] && [ -f "$REG" ] || exit 0

# The copy: the tree as it stands (mtimes kept), its build objects, a fresh repository.
mkdir -p "$T/tree/build"
git ls-files -co --exclude-standard -z | xargs -0 tar -cf - 2> "$T/tar.err" | tar -xf - -C "$T/tree" 2>> "$T/tar.err"
for d in core models objectives datasets bench third_party; do
    [ -d build/$d ] && cp -a build/$d "$T/tree/build/"
done
cp -a build/*.stamp build/git_commit.* build/libposbench.a build/posbench "$T/tree/build/" 2>> "$T/tar.err"
cd "$T/tree" || exit 1
{ git init -q && git add -A && git -c user.name=test -c user.email=test@localhost commit -qm base; } > "$T/git.out" 2>&1
check "a copy of the tree in a fresh repository" $? "$(cat "$T/tar.err" "$T/git.out" | head -c 300)"

# Step 1 of the checklist: the module, its hooks and capability flags.
cat > models/posenc/fixedtab.c <<'EOF'
// models/posenc/fixedtab.c — pe.kind=fixedtab (tests/e2e_add_method.sh adds it to a copy of the
// tree): a fixed (T, d) table added to every patch token, 0.01 ((7 t + 3 c) mod 11 - 5) at
// token t, channel c; cls gets none. Not learned.
#include "encoding.h"
#include "../model_view.h"

typedef struct {
    float *table, *table_host; // (T, d): backend, host staging
} fixedtab_state;

static void fixedtab_declare_acts(struct model *m) {
    const model_view v = model_view_of(m);
    fixedtab_state *s = v.state;
    model_add_input(m, "pos_fixedtab", (size_t)v.T_max * v.cfg->dim, &s->table, &s->table_host);
}

static void fixedtab_set_grid(struct model *m) {
    const model_view v = model_view_of(m);
    fixedtab_state *s = v.state;
    int d = v.cfg->dim;
    for (int t = 0; t < v.T; t++)
        for (int c = 0; c < d; c++)
            s->table_host[(size_t)t * d + c] = t < v.t0 ? 0.0f : 0.01f * (float)((7 * t + 3 * c) % 11 - 5);
    model_upload(m, s->table_host, (size_t)v.T * d);
}

static const float *fixedtab_table(struct model *m) { return ((fixedtab_state *)model_pe_state(m))->table; }

const posenc_kind posenc_fixedtab = {
    .name = "fixedtab",
    .description = "a fixed table, 0.01 ((7 t + 3 c) mod 11 - 5), added to every patch token",
    .positional = 1, .has_table = 1, .grid_ok = 1,
    .state_size = sizeof(fixedtab_state),
    .declare_acts = fixedtab_declare_acts,
    .set_grid = fixedtab_set_grid,
    .table_forward = fixedtab_table,
};
EOF
# Step 3: one X(name) in POSENC_KINDS (its step 2, keys of its own, it does not need).
sed -i 's/^\(#define POSENC_KINDS(X) .*\)$/\1 X(fixedtab)/' "$REG"
grep -q '^#define POSENC_KINDS(X) .* X(fixedtab)$' "$REG"
check "one X(fixedtab) in POSENC_KINDS ($REG)" $? "$(grep '^#define POSENC_KINDS' "$REG")"

make -j2 build/posbench build/tests/test_registries > "$T/make.out" 2>&1; rc=$?
check "the tree with pe.kind=fixedtab builds" $rc "exit $rc: $(grep -m3 -E 'error|Error' "$T/make.out")"
[ $rc -eq 0 ] || exit 0
build/tests/test_registries > "$T/reg.out" 2>&1; rc=$?
[ $rc -eq 0 ] && ! grep -q '^FAIL' "$T/reg.out"
check "tests/test_registries passes with it ($(grep -c '^PASS' "$T/reg.out") PASS)" $? "exit $rc: $(grep -m2 '^FAIL' "$T/reg.out")"
build/posbench train --help pe.kind > "$T/help.out" 2>&1
grep -q 'fixedtab (a fixed table, 0.01' "$T/help.out" && grep -q '|rope|fixedtab)' "$T/help.out"
check "posbench train --help pe.kind lists fixedtab and its description" $? "$(head -c 300 "$T/help.out")"
make docs > "$T/docs.out" 2>&1 && grep -q 'fixedtab (a fixed table' docs/keys.md
check "make docs lists it in docs/keys.md" $? "$(tail -n 3 "$T/docs.out")"

if [ -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    build/posbench train pe.kind=fixedtab train.steps=1 train.batch=16 data.limit=32 data.test_limit=16 eval.batch=16 \
        model.dim=16 model.depth=1 model.heads=2 model.patch=7 --threads 1 --out "$T/run" > "$T/train.out" 2>&1; rc=$?
    F=$(ls "$T"/run/*.h5 2>/dev/null | head -n 1)
    kind=$([ -n "$F" ] && h5dump -a /config/pe.kind "$F" 2>/dev/null | sed -n 's/^ *(0): //p' | tr -d '"')
    [ $rc -eq 0 ] && [ "$kind" = fixedtab ]
    check "one training step with pe.kind=fixedtab writes its run file (/config pe.kind=$kind)" $? "exit $rc: $(tail -n 3 "$T/train.out")"
else
    echo "SKIP add encoding: one training step: Fashion-MNIST is not installed"
fi

# The files touched, against the checklist's section of the page (<name> read as fixedtab).
git status --porcelain --untracked-files=all | sed 's/^...//' | sort > "$T/touched"
cd - > /dev/null || exit 1
cat > "$T/against.py" <<'EOF'
import re, sys
page, reg, touched = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(page, encoding='utf-8').read()
start = text.index('**Adding a position encoding:**')
section = text[start:text.index('**Adding', start + 10)]
named = {p.replace('<name>', 'fixedtab') for p in re.findall(r'[A-Za-z0-9_<>/.-]+\.(?:c|h|md)\b', section)}
named |= {'docs/' + p for p in named if '/' not in p}  # [keys.md](keys.md): a page beside this one
named.add(reg)
files = [l.strip() for l in open(touched) if l.strip()]
extra = [f for f in files if f not in named]
need = [f for f in ('models/posenc/fixedtab.c', reg) if f not in files]
print('touched: ' + ', '.join(files) + '; ' + ('not in the checklist: ' + ', '.join(extra) if extra else 'each named by the checklist'))
sys.exit(1 if extra or need else 0)
EOF
python3 "$T/against.py" "$PAGE" "$REG" "$T/touched" > "$T/files.out" 2>&1
check "git status shows only the checklist's files ($(paste -sd' ' "$T/touched"))" $? "$(cat "$T/files.out")"
# The comparison sees a stale checklist: without its make docs step, docs/keys.md is a file too many.
sed '/^\*\*Adding a position encoding:\*\*/,/^\*\*Adding a backbone/{/make docs/d}' "$PAGE" > "$T/stale.md"
python3 "$T/against.py" "$T/stale.md" "$REG" "$T/touched" > "$T/stale.out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q 'not in the checklist: docs/keys.md' "$T/stale.out"
check "a checklist without its make docs step fails the comparison" $? "exit $rc: $(cat "$T/stale.out")"
