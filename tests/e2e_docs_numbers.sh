#!/bin/sh
# tests/e2e_docs_numbers.sh — the measured numbers and verdicts that README.md and docs/*.md quote
# agree with the committed reports in docs/results/ (tests/docs_numbers.py; the convention is in
# docs/report.md, "Quoting a result in the docs"):
#   - the checked-in docs pass (one PASS line per doc);
#   - the check fails when a doc quotes a number its report does not have: a copy of the docs in
#     a temporary folder with one quoted number changed (90.83 -> 90.38 in docs/speech.md), one
#     verdict changed (holds -> does not hold in docs/cape.md), and one result written outside a
#     link beside a report link (docs/mp3.md), one number changed in a hand-written page of
#     docs/results (cape-audit.md), each must FAIL naming the file and line.
# About 1 s. The check itself: tests/docs_numbers.py.
cd "$(dirname "$0")/.." || exit 1
if ! command -v python3 > /dev/null 2>&1; then
    echo "SKIP docs-numbers: python3 not found (make deps-test installs it)"
    exit 0
fi
T=$(mktemp -d /tmp/posbench-docs-numbers.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS docs-numbers: $1"; else echo "FAIL docs-numbers: $1: $3"; fi; }

python3 tests/docs_numbers.py .

# A copy with deliberate errors: each must be caught.
mkdir -p "$T/docs" && cp README.md "$T/" && cp docs/*.md "$T/docs/" && cp -r docs/results "$T/docs/" || exit 1
python3 tests/docs_numbers.py "$T" > "$T/good" 2>&1
! grep -q '^FAIL' "$T/good"
check "the unchanged copy passes (control)" $? "$(grep '^FAIL' "$T/good" | head -c 300)"

sed -i 's/\[90\.83 vs 89\.72, inconclusive\]/[90.38 vs 89.72, inconclusive]/' "$T/docs/speech.md"
grep -q '90\.38 vs 89\.72' "$T/docs/speech.md" || echo "FAIL docs-numbers: the test's wrong number was not planted (docs/speech.md changed?)"
python3 tests/docs_numbers.py "$T" > "$T/out" 2>&1
grep '^FAIL docs-numbers: docs/speech.md' "$T/out" | grep -q 'speech.md:[0-9]*: \[90.38 vs 89.72, inconclusive\].*lacks 90.38'
check "a wrong number (90.38 for 90.83) in docs/speech.md fails, naming the line and the number" $? "$(grep speech.md "$T/out" | head -c 400)"

sed -i 's/\[55\.07 vs 34\.78, Δ +20\.28, holds\]/[55.07 vs 34.78, Δ +20.28, does not hold]/' "$T/docs/cape.md"
grep -q '20\.28, does not hold' "$T/docs/cape.md" || echo "FAIL docs-numbers: the test's wrong verdict was not planted (docs/cape.md changed?)"
python3 tests/docs_numbers.py "$T" > "$T/out" 2>&1
grep '^FAIL docs-numbers: docs/cape.md' "$T/out" | grep -q 'lacks does not hold'
check "a wrong verdict (does not hold for holds) in docs/cape.md fails" $? "$(grep cape.md "$T/out" | head -c 400)"

printf '\nSee [results/mp3-small-REPORT.md](results/mp3-small-REPORT.md): MP3 reaches 84.1%% there.\n' >> "$T/docs/mp3.md"
python3 tests/docs_numbers.py "$T" > "$T/out" 2>&1
grep '^FAIL docs-numbers: docs/mp3.md' "$T/out" | grep -q '"84.1%" looks like a measured result'
check "a result quoted outside a link, beside a report link (84.1% in docs/mp3.md), fails" $? "$(grep mp3.md "$T/out" | head -c 400)"

# A hand-written page beside the reports (docs/results/cape-audit.md) is checked as the docs are.
sed -i 's/\[74\.15\](cape-small-REPORT\.md)/[74.51](cape-small-REPORT.md)/' "$T/docs/results/cape-audit.md"
grep -q '\[74\.51\]' "$T/docs/results/cape-audit.md" || echo "FAIL docs-numbers: the test's wrong number was not planted (docs/results/cape-audit.md changed?)"
python3 tests/docs_numbers.py "$T" > "$T/out" 2>&1
grep '^FAIL docs-numbers: docs/results/cape-audit.md' "$T/out" | grep -q 'cape-audit.md:[0-9]*: \[74.51\].*lacks 74.51'
check "a wrong number (74.51 for 74.15) in docs/results/cape-audit.md, a hand-written page beside the reports, fails" $? "$(grep cape-audit.md "$T/out" | head -c 400)"
