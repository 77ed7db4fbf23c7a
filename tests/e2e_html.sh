#!/bin/sh
# tests/e2e_html.sh — REPORT.html (issue 32 §3) in a real browser, headless Chromium (Debian's
# chromium, scripts/deps.sh): a tiny experiment (Fashion-MNIST, 128 images, d 16: pe.kind abs /
# none x 2 seeds, a finding, a caveat and a claim with HTML-like text, two figures) is run,
# plotted and reported; then
#   - REPORT.html loads with no console message (the page has no script: any message, an error or
#     an uncaught exception, is a fault) and refers to nothing outside itself (the probe below
#     lists every src/href of the loaded DOM that is not an #anchor or a data: URI: none);
#   - every figure renders: a probe copy of the page (the page + a script appended in the test's
#     temp folder, never in the report) is read with --dump-dom and reports, per <figure>, its
#     <img>'s size on screen and whether the browser decoded the SVG (naturalWidth > 0);
#   - figures are images, never inline markup: the page has no <svg> element, and an SVG with a
#     <script> planted as figures/planted.svg (no data file: posbench plot did not draw it) is
#     not in the page and is named in a warning;
#   - the hostile caveat and claim come back as text (no <script> or <b> element from them);
#   - a screenshot (1280 x 4000) is taken into the temp folder and is a PNG that is not one flat
#     colour (over 2% of its sampled pixels differ from the background).
# Where Chromium is not installed and cannot be (no root), one SKIP line and exit 0.
# POSBENCH_TEST_KEEP=1 keeps the temp folder (its path printed). About 20 s.
cd "$(dirname "$0")/.." || exit 1
PB=build/posbench
PY=/usr/bin/python3
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
    echo "SKIP html: Chromium is not installed (Debian package chromium; scripts/deps.sh installs it)"
    exit 0
fi
T=$(mktemp -d /tmp/posbench-html.XXXXXX) || exit 1
if [ -n "$POSBENCH_TEST_KEEP" ]; then echo "# files kept in $T"; else trap 'rm -rf "$T"' EXIT; fi
check() { if [ "$2" -eq 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fi; }
cat > "$T/html-e2e.yaml" <<'YAML'
name: html-e2e
description: two encodings, tiny, for the HTML report test
base:
  data: {name: fashion-mnist, limit: 128, test_limit: 64}
  model: {dim: 16, depth: 1, heads: 2, patch: 7}
  train: {epochs: 2, batch: 32}
matrix:
  pe.kind: [abs, none]
seeds: [0, 1]
figures:
  - {kind: metric_vs_axis, metric: final.top1, x: pe.kind}
  - {kind: curves, metric: train.loss}
caveats:
  - "hostile caveat <script>document.title='pwned'</script> & \"quotes\" 'single'"
findings:
  - claim: "abs beats none <b>in bold?</b> & more"
    paper: "Table <1> & 'two'"
    kind: greater
    a: {stage: main, match: {pe.kind: abs}, metric: top1}
    b: {stage: main, match: {pe.kind: none}, metric: top1}
YAML
$PB run "$T/html-e2e.yaml" --out "$T/r" --threads 1 > "$T/run.log" 2>&1 || { echo "FAIL html: the tiny experiment: $(tail -n 3 "$T/run.log")"; exit 0; }
$PB plot "$T/r" > "$T/plot.log" 2>&1 || { echo "FAIL html: posbench plot: $(tail -n 3 "$T/plot.log")"; exit 0; }
nfig=$(ls "$T"/r/figures/*.svg 2>/dev/null | wc -l)
printf '<svg xmlns="http://www.w3.org/2000/svg"><script>document.title="pwned"</script><text>planted</text></svg>\n' > "$T/r/figures/planted.svg"
$PB report "$T/r" > "$T/report.log" 2>&1 || { echo "FAIL html: posbench report: $(tail -n 3 "$T/report.log")"; exit 0; }
H="$T/r/REPORT.html"
! grep -q -e '<svg' -e 'planted' "$H" && grep -q 'not showing .*planted.svg: posbench plot did not draw it' "$T/report.log"
check "html: figures are <img> data: images, never inline <svg>; a planted figures/planted.svg is left out with a warning" $? \
    "$(grep -c '<svg' "$H") <svg in the page; $(grep -o 'planted.\{0,60\}' "$H" | head -n 1); log: $(grep planted "$T/report.log")"
[ -s "$H" ] && [ "$nfig" -ge 2 ]
check "html: posbench report wrote REPORT.html and plot drew $nfig SVG figures" $? "$(ls "$T/r")"

# Chromium as root needs --no-sandbox; a private profile keeps it off the user's.
chrome() { timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$T/profile" \
    --enable-logging=stderr --v=0 "$@"; }
chrome --virtual-time-budget=5000 --dump-dom "file://$H" > "$T/dom.html" 2> "$T/console.log"
rc=$?
# console messages are "...:INFO:CONSOLE:<line>] "text", source: ..." lines in Chromium's log, whatever
# their level (console.error and an uncaught exception alike): the page has no script, so any is wrong
console=$(grep -E ':CONSOLE[:(]' "$T/console.log" | head -n 3)
[ $rc -eq 0 ] && [ -s "$T/dom.html" ] && [ -z "$console" ] && grep -q 'Commands and commit' "$T/dom.html"
check "html: the page loads in Chromium with no console error" $? "exit $rc; $console $(grep -m2 ERROR "$T/console.log" | grep -v dbus)"

# the probe: the page with a script appended that measures every figure
grep -v -e '^</body>$' -e '^</html>$' "$H" > "$T/probe.html"
cat >> "$T/probe.html" <<'JS'
<script>
window.addEventListener("load", function () {
  var out = [];
  document.querySelectorAll("figure").forEach(function (f) {
    var s = f.querySelector("img"), r = s ? s.getBoundingClientRect() : {width: 0, height: 0};
    var drawn = s && s.complete && s.naturalWidth > 0 ? 1 : 0;
    out.push((f.id || "?") + " " + Math.round(r.width) + "x" + Math.round(r.height) + " " + drawn);
  });
  document.querySelectorAll("*").forEach(function (el) { // what a page could fetch: none but its own anchors and data: URIs
    for (var i = 0; i < el.attributes.length; i++) {
      var a = el.attributes[i], v = a.value.trim();
      if (/^(src|href|xlink:href|srcset|poster|data|action)$/.test(a.name) && v[0] !== "#" && v.indexOf("data:") !== 0)
        out.push("fetched " + el.tagName + " " + a.name + "=" + v.slice(0, 80));
    }
  });
  var p = document.createElement("pre");
  p.id = "probe";
  p.textContent = "\nPROBE\n" + out.join("\n") + "\nEND\n";
  document.body.appendChild(p);
  document.body.setAttribute("data-title", document.title);
});
</script>
</body>
</html>
JS
chrome --virtual-time-budget=5000 --dump-dom "file://$T/probe.html" > "$T/probe.dom" 2>> "$T/console.log"
sed -n '/^PROBE$/,/^END/p' "$T/probe.dom" | sed '1d;$d' > "$T/figures.txt"
fetched=$(grep '^fetched' "$T/figures.txt")
[ -z "$fetched" ] && grep -q '^PROBE$' "$T/probe.dom"
check "html: the page refers to nothing outside itself (every src/href in the loaded DOM is #anchor or data:)" $? "$fetched"
sed -i '/^fetched/d' "$T/figures.txt"
n=$(wc -l < "$T/figures.txt")
bad=$(awk '{ split($2, wh, "x"); if (wh[1] < 100 || wh[2] < 100 || $3 < 1) print }' "$T/figures.txt")
[ "$n" -eq "$nfig" ] && [ -z "$bad" ]
check "html: every figure renders ($n of $nfig figures have a decoded <img> of at least 100x100 px)" $? \
    "probe: $(tr '\n' ';' < "$T/figures.txt") bad: $bad"

# hostile text: shown as text; the page title is still the report's
grep -q 'data-title="posbench report: ' "$T/probe.dom" && ! grep -q 'data-title="pwned' "$T/probe.dom" &&
    grep -q 'hostile caveat &lt;script&gt;' "$T/dom.html" && grep -q 'abs beats none &lt;b&gt;in bold?&lt;/b&gt; &amp; more' "$T/dom.html" &&
    ! grep -q '<b>in bold' "$T/dom.html"
check "html: HTML-like text from the experiment file (a caveat, a claim) is escaped, not run or rendered as markup" $? \
    "$(grep -o 'hostile caveat.\{0,80\}' "$T/dom.html" | head -n 1)"

chrome --window-size=1280,4000 --hide-scrollbars --screenshot="$T/report.png" "file://$H" > /dev/null 2>> "$T/console.log"
"$PY" - "$T/report.png" <<'PYEOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
ok = data[:8] == b"\x89PNG\r\n\x1a\n"
w, h, depth, ctype = struct.unpack(">IIBB", data[16:26]) if ok else (0, 0, 0, 0)
chunks, i = b"", 8
while ok and i < len(data):
    n, kind = struct.unpack(">I4s", data[i:i + 8])
    if kind == b"IDAT": chunks += data[i + 8:i + 8 + n]
    i += 12 + n
raw = zlib.decompress(chunks) if ok else b""
bpp = {2: 3, 6: 4}.get(ctype, 0)
stride = w * bpp + 1
rows, prev = [], bytearray(stride - 1)
for y in range(h if bpp and depth == 8 else 0):  # PNG filters: each row from the one above
    f, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
    for x in range(len(line)):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    if y % 8 == 0: rows.append(bytes(line))
    prev = line
px = [r[x:x + 3] for r in rows for x in range(0, len(r), bpp * 8)]
bg = max(set(px), key=px.count) if px else b""
frac = sum(p != bg for p in px) / len(px) if px else 0
good = ok and w == 1280 and frac > 0.02
print(("PASS" if good else "FAIL") + " html: a screenshot of the page (%dx%d PNG, %.1f%% of sampled pixels not background)%s"
      % (w, h, 100 * frac, "" if good else ": blank or not a PNG"))
PYEOF
exit 0
