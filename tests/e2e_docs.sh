#!/bin/sh
# tests/e2e_docs.sh — docs that cannot drift (issue 32 §6):
#   - docs/keys.md is exactly what `make docs` writes (`build/posbench --keys-markdown`, the key
#     table of bench/config/config.c and every module's own keys); else the diff and the fix;
#   - README.md at most 150 lines, .ci/run runs its `make test`, every relative link of README.md
#     and docs/*.md resolves (file and #anchor), every package of scripts/deps.sh's groups is
#     named in docs/usage.md (tests/docs_check.py);
#   - make deps in groups: with a test-only package missing (python3-torch), `scripts/deps.sh
#     build` and `make build/posbench` succeed and `make deps-test` fails naming the package; with
#     a build package missing (libyaml-dev), `make build/posbench` fails naming it; `make test`
#     checks the test and data groups. dpkg-query and apt-get are stand-ins on PATH here (nothing
#     is installed or removed).
# About 3 s.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
T=$(mktemp -d /tmp/posbench-docs.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS docs: $1"; else echo "FAIL docs: $1: $3"; fi; }

# docs/keys.md up to date
if "$PB" --keys-markdown > "$T/keys.md" 2> "$T/err"; then
    if diff -u docs/keys.md "$T/keys.md" > "$T/keys.diff"; then
        check "docs/keys.md equals make docs's output ($(grep -c '^| `' docs/keys.md) keys)" 0 ""
    else
        # One FAIL line (tests/run_all.sh shows only those) with the changed lines, then the full diff.
        changed=$(grep -E '^[-+][^-+]' "$T/keys.diff" | cut -c1-160 | head -n 12 | tr '\n' ' ')
        check "docs/keys.md equals make docs's output" 1 "docs/keys.md is out of date; fix: make docs (then commit docs/keys.md); committed (-) vs generated (+): $changed"
        cat "$T/keys.diff"
    fi
else
    check "posbench --keys-markdown" 1 "exit $?: $(head -c 300 "$T/err")"
fi

# README length, links, the package groups in docs/usage.md
if command -v python3 > /dev/null 2>&1; then
    python3 tests/docs_check.py . || echo "FAIL docs: tests/docs_check.py exited $?"
else
    echo "SKIP docs: README length and links: python3 not found (make deps-test installs it with python3-numpy)"
fi

# make deps in groups, against stand-ins for dpkg-query (every package installed but $MISSING)
# and apt-get (records its arguments and fails, as when a package cannot be installed).
mkdir -p "$T/bin"
cat > "$T/bin/dpkg-query" <<'EOF'
#!/bin/sh
for p; do :; done
case " $MISSING " in *" $p "*) exit 1 ;; esac
printf 'install ok installed'
EOF
cat > "$T/bin/apt-get" <<'EOF'
#!/bin/sh
echo "$*" >> "$APT_LOG"
exit 100
EOF
chmod +x "$T/bin/dpkg-query" "$T/bin/apt-get"
export APT_LOG="$T/apt.log"
stub() { env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS PATH="$T/bin:$PATH" MISSING="$1" sh -c "$2" > "$T/out" 2>&1; }

stub python3-torch 'sh scripts/deps.sh build'
check "deps.sh build passes with a test package (python3-torch) missing" $? "$(tail -n 3 "$T/out")"
stub python3-torch 'sh scripts/deps.sh test'; rc=$?
[ $rc -eq 1 ] && grep -q 'python3-torch' "$T/out"
check "deps.sh test fails naming the missing python3-torch" $? "exit $rc: $(tail -n 3 "$T/out")"
stub 'python3-torch dataset-fashion-mnist' 'make --no-print-directory build/posbench'
check "make build/posbench needs only the build group (python3-torch, dataset-fashion-mnist missing)" $? "$(tail -n 5 "$T/out")"
stub libyaml-dev 'make --no-print-directory build/posbench'; rc=$?
[ $rc -ne 0 ] && grep -q 'libyaml-dev' "$T/out"
check "make build/posbench refuses a missing build package (libyaml-dev), naming it" $? "exit $rc: $(tail -n 3 "$T/out")"
stub python3-torch 'make --no-print-directory deps-test'; rc=$?
[ $rc -ne 0 ] && grep -q 'python3-torch' "$T/out"
check "make deps-test fails naming python3-torch" $? "exit $rc: $(tail -n 3 "$T/out")"
# make test's own prerequisites (read from make's database; running make test here would recurse)
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -pn --no-print-directory help 2>/dev/null | grep '^test:' > "$T/rule"
grep -q ' deps-test' "$T/rule" && grep -q ' deps-data' "$T/rule"
check "make test checks the test and data groups" $? "rule: $(cat "$T/rule")"
stub '' 'sh scripts/deps.sh nonsense'; rc=$?
[ $rc -eq 2 ] && grep -q 'valid: build, test, data' "$T/out"
check "deps.sh refuses an unknown group (exit 2, naming the valid ones)" $? "exit $rc: $(cat "$T/out")"
