#!/usr/bin/python3
"""tests/report_formats_check.py — checks `posbench report DIR --format md,csv,json` and REPORT.html
against the REPORT.md of the same runs (issue 32 §1; files and columns: bench/report/report_formats.h).
Usage: report_formats_check.py DIR. Prints PASS/FAIL lines (tests/testing.h); exit 0.
Checked: tables.json and findings.json parse under a strict reader (no NaN/Infinity); every CSV
is RFC 4180 (CRLF, byte-equal to Python's csv writer with minimal quoting); each table's CSV
equals its tables.json object and its REPORT.md table (text cells verbatim; metric cells: the
Markdown 'M ± S' is the CSV mean and std rounded to M's digits); findings.csv equals findings.json
and REPORT.md's findings rows (claim, ours, paper, verdict, the claim, against and Holm p with the
side judged and the family, the 90% CI)."""
import csv, io, json, math, os, re, sys

D = sys.argv[1]
fails = 0


def check(name, ok, why=""):
    global fails
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))
    fails += not ok


def strict(text):
    def bad(c):
        raise ValueError("non-finite number " + c)
    return json.loads(text, parse_constant=bad)


def read_csv(path):
    raw = open(path, "rb").read()
    text = raw.decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return rows, out.getvalue().encode("utf-8") == raw


def md_cells(line):
    """The cells of a Markdown table line, '\\|' unescaped."""
    cells, cur, i, s = [], "", 0, line.strip()
    assert s.startswith("|") and s.endswith("|")
    s = s[1:]
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] == "|":
            cur += "|"; i += 2; continue
        if s[i] == "|":
            cells.append(cur.strip()); cur = ""; i += 1; continue
        cur += s[i]; i += 1
    return cells


def md_tables(md):
    """Every Markdown table of md: (header cells, rows of cells), in order."""
    lines, out, i = md.split("\n"), [], 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|(-+:?\|)+$", lines[i + 1]):
            head, rows, i = md_cells(lines[i]), [], i + 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(md_cells(lines[i])); i += 1
            out.append((head, rows))
        else:
            i += 1
    return out


def rounds_to(shown, value):
    """Does value, printed like the Markdown number `shown`, give `shown`?"""
    m = re.fullmatch(r"[-+]?\d+(?:\.(\d+))?", shown)
    if not m:
        return value is not None and abs(float(shown) - value) <= 1e-3 * abs(value) + 1e-12
    if value is None:
        return False
    printed = "%.*f" % (len(m.group(1) or ""), value)
    return printed == shown or (float(printed) == 0 and float(shown) == 0)


md = open(os.path.join(D, "REPORT.md"), encoding="utf-8").read()
tables_md = md_tables(md)
md_f = [r for h, rs in tables_md if h == ["claim", "ours", "paper", "verdict"] for r in rs]
try:
    tables = strict(open(os.path.join(D, "tables.json"), encoding="utf-8").read())
    findings = strict(open(os.path.join(D, "findings.json"), encoding="utf-8").read())
    check("report formats: tables.json and findings.json are strict JSON", True)
except Exception as e:
    check("report formats: tables.json and findings.json are strict JSON", False, str(e))
    sys.exit(0)

stage_tables = [t for t in tables_md if t[0][:1] != ["claim"]]
check("report formats: one table in tables.json per REPORT.md table", len(tables) == len(stage_tables),
      "%d vs %d" % (len(tables), len(stage_tables)))
rfc, same_json, same_md, cells = True, True, True, 0
why = []
for t, (head, mdrows) in zip(tables, stage_tables):
    rows, ok = read_csv(os.path.join(D, "tables", t["name"] + ".csv"))
    rfc &= ok
    if head != t["columns"]:
        same_md = False; why.append("%s: columns %s vs %s" % (t["name"], t["columns"], head)); continue
    csv_head = []
    kinds = {}
    for c in t["columns"]:
        sample = t["rows"][0][c] if t["rows"] else ""
        kinds[c] = "stats" if isinstance(sample, dict) else "num" if isinstance(sample, (int, float)) else "text"
        csv_head += [c, c + " std"] if kinds[c] == "stats" else [c]
    if rows[0] != csv_head or len(rows) - 1 != len(t["rows"]) or len(mdrows) != len(t["rows"]):
        same_json = False; why.append("%s: CSV header/rows differ" % t["name"]); continue
    for r, jrow, mrow in zip(rows[1:], t["rows"], mdrows):
        k = 0
        for c, shown in zip(t["columns"], mrow):
            cells += 1
            if kinds[c] == "text":
                same_json &= r[k] == jrow[c]
                if r[k] != shown:
                    same_md = False; why.append("%s %s: %r vs %r" % (t["name"], c, r[k], shown))
                k += 1
            elif kinds[c] == "num":
                same_json &= float(r[k]) == jrow[c]
                same_md &= shown == r[k]
                k += 1
            else:
                mean = float(r[k]) if r[k] else None
                std = float(r[k + 1]) if r[k + 1] else None
                same_json &= mean == jrow[c]["mean"] and std == jrow[c]["std"]
                parts = shown.split(" ± ")
                ok = (shown == "—" and mean is None) or (rounds_to(parts[0], mean) and (
                    len(parts) == 1 and std is None or parts[1] == "—" and std is None or len(parts) == 2 and rounds_to(parts[1], std)))
                if not ok:
                    same_md = False; why.append("%s %s: %r vs mean %r std %r" % (t["name"], c, shown, mean, std))
                k += 2
check("report formats: tables/*.csv are RFC 4180 (CRLF, minimal quoting)", rfc)
check("report formats: each table's CSV equals its tables.json object", same_json, "; ".join(why[:3]))
check("report formats: tables equal REPORT.md's cell for cell (%d cells)" % cells, same_md and cells > 0, "; ".join(why[:3]))

# REPORT.html: the same tables, cell for cell, once the HTML is parsed (escaping round-trips)
import html.parser


class Tables(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.cell, self.classes, self.urls, self.scripts = [], None, [], [], 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
            self.classes.append(a.get("class", ""))
        elif tag in ("td", "th"):
            self.cell = ""
        elif tag == "script":
            self.scripts += 1
        for k in ("src", "href", "xlink:href"):
            if k in a and not (a[k].startswith("#") or a[k].startswith("data:")):
                self.urls.append(a[k])

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.tables[-1][-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


page = Tables()
page.feed(open(os.path.join(D, "REPORT.html"), encoding="utf-8").read())
plain = lambda c: re.sub(r"`([^`]*)`", r"\1", c).replace("**", "")
want = [[[plain(c) for c in head]] + [[plain(c) for c in r] for r in rows] for head, rows in tables_md]
check("report html: REPORT.html's tables equal REPORT.md's, cell for cell (%d tables)" % len(want),
      page.tables == want, "first difference in table %s" % next((i for i, (a, b) in enumerate(zip(page.tables, want)) if a != b), len(page.tables)))
verdicts = [c for c in page.classes if c.startswith("verdict-")]
word = {"holds": "verdict-holds", "does": "verdict-fails", "inconclusive": "verdict-inconclusive", "not": "verdict-not-measured"}
check("report html: each findings row is coloured by its verdict (%d rows)" % len(md_f),
      verdicts == [word[m[3].split()[0]] for m in md_f], "%s" % verdicts[:5])
check("report html: no script and no external URL", page.scripts == 0 and not page.urls, "%d scripts, urls %s" % (page.scripts, page.urls[:3]))

rows, ok = read_csv(os.path.join(D, "findings.csv"))
check("report formats: findings.csv is RFC 4180", ok)
head = rows[0]
frows = [dict(zip(head, r)) for r in rows[1:]]
check("report formats: one findings.csv / findings.json row per REPORT.md finding (%d)" % len(md_f),
      len(frows) == len(md_f) == len(findings) and len(md_f) > 0, "%d, %d, %d" % (len(frows), len(findings), len(md_f)))
bad = []
nci = 0
for c, j, m in zip(frows, findings, md_f):
    claim, ours, paper, verdict = m
    for key, want in (("claim", claim), ("ours", ours), ("paper", paper), ("verdict_text", verdict)):
        flat = re.sub(r"[\t\r\n]", " ", c[key])  # REPORT.md flattens tabs and line breaks; the files keep them
        if flat != want or j[key] != c[key]:
            bad.append("%s: %r vs %r" % (key, c[key], want))
    if not verdict.startswith(c["verdict"]):
        bad.append("verdict %r vs %r" % (c["verdict"], verdict))
    for key, label in (("p", "claim p "), ("p_against", "against p "), ("p_holm", "Holm p ")):
        hit = re.search(re.escape(label) + r"(= ([0-9.]+)|< 0\.001|> 0\.999)", ours)
        val = j[key]
        if (c[key] == "") != (val is None) or (val is not None and float(c[key]) != val):
            bad.append("%s: CSV %r vs JSON %r" % (key, c[key], val))
        if hit is None:
            if val is not None: bad.append("%s %r but no p in ours" % (key, val))
        elif hit.group(2) is None:
            if not (val is not None and (val < 0.001 if hit.group(1) == "< 0.001" else val > 0.999)):
                bad.append("%s %r vs %r" % (key, val, hit.group(1)))
        elif val is None or "%.3f" % val != hit.group(2):
            bad.append("%s %r vs %s" % (key, val, hit.group(2)))
    side = re.search(r"Holm p [^(]*\((claim|against); ([0-9]+) comparisons, experiment `([^`]*)`\)", ours)
    if (side is None) != (j["holm_side"] in (None, "")) or (side and (side.group(1) != j["holm_side"] or int(side.group(2)) != j["holm_findings"]
                                                                      or side.group(3) != j["experiment"] or c["holm_side"] != j["holm_side"])):
        bad.append("holm side/family %r vs %r %r" % (side.groups() if side else None, j["holm_side"], j["holm_findings"]))
    cis = re.findall(r"90% CI \[([-+0-9.]+), ([-+0-9.]+)\]", ours)
    if len(cis) == 1:
        nci += 1
        if j["ci90_low"] is None or float(cis[0][0]) != j["ci90_low"] or float(cis[0][1]) != j["ci90_high"]:
            bad.append("CI %r vs %r %r" % (cis[0], j["ci90_low"], j["ci90_high"]))
    elif j["ci90_low"] is not None or c["ci90_low"] != "":
        bad.append("a CI given where ours states %d" % len(cis))
check("report formats: findings rows equal REPORT.md's (claim, ours, paper, verdict, claim/against/Holm p, side and family; %d single CIs)" % nci,
      not bad and nci > 0, "; ".join(bad[:4]))
sys.exit(0)
