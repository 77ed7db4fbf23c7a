#!/usr/bin/python3
"""tests/docs_numbers.py ROOT — measured numbers and verdicts quoted in README.md, docs/*.md and
the hand-written pages of docs/results/ (those not named *-REPORT.md) agree with the committed
reports in docs/results/ (tests/e2e_docs_numbers.sh runs it).

The convention it checks (docs/report.md, "Quoting a result in the docs"):
  - a doc quotes a measured result only as the text of a link to the committed report it comes
    from, e.g. `[90.83 vs 89.72, inconclusive](results/speech-small-REPORT.md)`;
  - every number in that link text, and every verdict phrase (holds, does not hold,
    inconclusive, significant against), must appear together on one line of the report
    (a table row: a stage row, or a finding with its verdict); a number matches a whole token
    of the row (74.58 matches "74.58 ± 0.51", not "174.58"), a leading + and the % sign are
    ignored, and a Unicode minus counts as "-";
  - hand text of a report (a blockquote `>` or an HTML comment) is not searched: only what
    the report generator wrote;
  - in a paragraph or list item that cites a committed report (links or names one), a
    result-like number outside such links and outside code fails: a decimal percentage ("70.1%")
    or a mean ± spread ("90.83 ± 1.50"). Other numbers (sizes, commands, defaults, the paper's
    own numbers) are not matched.
One PASS/FAIL line per doc. Exit 0 (the lines carry the verdict)."""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else '.'
VERDICTS = ('does not hold', 'significant against', 'inconclusive', 'holds')
NUMBER = re.compile(r'(?<![\w.])[-+\u2212]?\d+(?:\.\d+)?(?![\w.]*\w)')
LINK = re.compile(r'\[([^\]]*)\]\(([^)\s]+)\)')
STRAY = re.compile(r'\d+\.\d+\s?%|\d+(?:\.\d+)?\s?±\s?\d')


def strip_code(text):
    """Markdown text without fenced code blocks and inline code spans, line for line."""
    out, fenced = [], False
    for line in text.split('\n'):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            out.append('')
            continue
        out.append('' if fenced else re.sub(r'`[^`]*`', 'code', line))
    return out


def norm(token):
    return token.replace('\u2212', '-').lstrip('+')


def tokens(line):
    """The numbers of a line, normalised (sign +, Unicode minus, trailing % dropped)."""
    return {norm(t) for t in NUMBER.findall(line.replace('%', ' '))}


_reports = {}


def report_lines(path):
    """The generated lines of a committed report: without blockquotes and HTML comments."""
    if path not in _reports:
        with open(path, encoding='utf-8') as f:
            text = re.sub(r'<!--.*?-->', '', f.read(), flags=re.S)
        _reports[path] = [(l, tokens(l), l.lower()) for l in text.split('\n')
                          if not l.lstrip().startswith('>')]
    return _reports[path]


def verdicts_of(text):
    found, rest = [], text.lower()
    for v in VERDICTS:  # longest first: "does not hold" before "holds"
        if v in rest:
            found.append(v)
            rest = rest.replace(v, ' ')
    return found


def report_target(path, target):
    """The committed report a link of the doc at path points to (its path), or None."""
    file_part = target.partition('#')[0]
    if not file_part or '://' in file_part:
        return None
    dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part))
    rel_dest = os.path.relpath(dest, ROOT)
    if rel_dest.startswith(os.path.join('docs', 'results') + os.sep) and dest.endswith('.md') and dest != os.path.normpath(path):
        return dest
    return None


def check_doc(rel):
    path = os.path.join(ROOT, rel)
    with open(path, encoding='utf-8') as f:
        lines = strip_code(f.read())
    bad, quotes = [], 0
    # The paragraphs (blank-line separated) that cite a committed report.
    cites, para = [False] * len(lines), []
    # A list item starts a paragraph of its own.
    for i, line in enumerate(lines + ['']):
        item = re.match(r'\s*([-*]|\d+\.)\s', line)
        if line.strip() and not (item and para):
            para.append(i)
            continue
        if any(re.search(r'results/[\w.-]+\.md', lines[j]) or
               any(report_target(path, t) for _, t in LINK.findall(lines[j])) for j in para):
            for j in para:
                cites[j] = True
        para = [i] if line.strip() else []
    for lineno, line in enumerate(lines, 1):
        for text, target in LINK.findall(line):
            dest = report_target(path, target)
            if not dest:
                continue
            rel_dest = os.path.relpath(dest, ROOT)
            nums, verdicts = tokens(text), verdicts_of(text)
            if not nums and not verdicts:
                continue  # a plain link to the report
            quotes += 1
            if not os.path.isfile(dest):
                bad.append(f'{rel}:{lineno}: [{text}] links {rel_dest}, which does not exist')
                continue
            best, best_missing = None, None
            for rline, rnums, rlow in report_lines(dest):
                missing = sorted(nums - rnums) + [v for v in verdicts if v not in verdicts_of(rlow)]
                if best_missing is None or len(missing) < len(best_missing):
                    best, best_missing = rline, missing
                if not missing:
                    break
            if best_missing:
                bad.append(f'{rel}:{lineno}: [{text}] does not agree with {rel_dest}: no line of it has '
                           f'all of its numbers and verdicts; the closest lacks {", ".join(best_missing)}'
                           f' ({best.strip()[:160]!r})')
        outside = LINK.sub(lambda m: '' if 'results/' in m.group(2) or report_target(path, m.group(2)) else m.group(1), line)
        for m in STRAY.finditer(outside if cites[lineno - 1] else ''):
            bad.append(f'{rel}:{lineno}: "{m.group(0)}" looks like a measured result outside a link to the '
                       f'report it comes from (quote it as [number](results/NAME-REPORT.md), '
                       f'see docs/report.md)')
    ok = not bad
    print(f"{'PASS' if ok else 'FAIL'} docs-numbers: {rel} ({quotes} quoted results)"
          + ('' if ok else ': ' + '; '.join(bad)))
    return quotes


docs = ['README.md'] + sorted(os.path.join('docs', f) for f in os.listdir(os.path.join(ROOT, 'docs'))
                              if f.endswith('.md') and f != 'keys.md')
# Hand-written pages beside the reports (an audit, a reading): every .md of docs/results that
# `posbench report` did not write.
docs += sorted(os.path.join('docs', 'results', f) for f in os.listdir(os.path.join(ROOT, 'docs', 'results'))
               if f.endswith('.md') and not f.endswith('-REPORT.md'))
total = sum(check_doc(rel) for rel in docs)
print(f'# {total} quoted results in {len(docs)} docs', file=sys.stderr)
