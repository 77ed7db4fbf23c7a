#!/usr/bin/python3
"""tests/docs_check.py ROOT — the checks that keep README.md and docs/ from drifting (issue 32 §6),
one PASS/FAIL line each (tests/e2e_docs.sh runs it):
  readme-length   README.md is at most 150 lines (the rest lives in docs/);
  links FILE      every relative link [text](target) of README.md and docs/*.md points at a file
                  (or folder) that exists, and a #anchor into a Markdown file at one of its
                  headings (GitHub's anchor rule); links inside code are not links;
  ci-command      .ci/run runs the test command README.md gives (`make test`);
  deps-groups     every package scripts/deps.sh installs (build, test and data groups) is named
                  in docs/usage.md, and every group is named there.
docs/keys.md against `posbench --keys-markdown` is checked by tests/e2e_docs.sh itself."""
import os
import re
import subprocess
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else '.'
README_MAX_LINES = 150
failures = 0


def check(name, ok, why):
    global failures
    print(f"{'PASS' if ok else 'FAIL'} docs: {name}{'' if ok else ': ' + why}")
    failures += 0 if ok else 1


def strip_code(text):
    """Markdown text without fenced code blocks and inline code spans (their brackets are not links)."""
    out, fenced = [], False
    for line in text.split('\n'):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            out.append('')
            continue
        out.append('' if fenced else re.sub(r'`[^`]*`', 'code', line))
    return '\n'.join(out)


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped (word characters, spaces and
    hyphens kept), spaces to hyphens. Inline code keeps its text."""
    text = heading.strip().lower().replace('`', '')
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def anchors(path):
    seen, out = {}, set()
    fenced = False
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.lstrip().startswith('```'):
                fenced = not fenced
                continue
            m = None if fenced else re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', line)
            if not m:
                continue
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else f'{s}-{n}')
    return out


def check_links(rel):
    path = os.path.join(ROOT, rel)
    with open(path, encoding='utf-8') as f:
        text = strip_code(f.read())
    bad, count = [], 0
    for lineno, line in enumerate(text.split('\n'), 1):
        for target in re.findall(r'\]\(([^)\s]+)(?:\s+"[^"]*")?\)', line):
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):  # http:, https:, mailto:
                continue
            count += 1
            file_part, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(dest):
                bad.append(f'{rel}:{lineno}: {target} (no such file: {os.path.relpath(dest, ROOT)})')
            elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
                bad.append(f'{rel}:{lineno}: {target} (no heading with anchor #{anchor} in {os.path.relpath(dest, ROOT)})')
    check(f'links {rel} ({count} relative links)', not bad, '; '.join(bad))


with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as f:
    n = sum(1 for _ in f)
check(f'readme-length ({n} lines, at most {README_MAX_LINES})', n <= README_MAX_LINES,
      f'README.md has {n} lines: move detail into docs/ and link it')

docs = sorted(os.path.join('docs', f) for f in os.listdir(os.path.join(ROOT, 'docs')) if f.endswith('.md'))
for rel in ['README.md'] + docs:
    check_links(rel)

# .ci/run runs the test command README.md gives (the first word pair of its `make test` line).
with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as f:
    readme_cmds = [l.split('#')[0].strip() for l in f if l.startswith('make test')]
with open(os.path.join(ROOT, '.ci', 'run'), encoding='utf-8') as f:
    ci_cmds = [l.strip() for l in f if not l.lstrip().startswith('#')]
check('ci-command (.ci/run runs the test command README.md gives)',
      bool(readme_cmds) and readme_cmds[0] in ci_cmds,
      f'README.md gives {readme_cmds[:1] or "no make test line"}, .ci/run runs {ci_cmds}')

with open(os.path.join(ROOT, 'docs', 'usage.md'), encoding='utf-8') as f:
    usage = f.read()
missing = []
for group in ('build', 'test', 'data'):
    pkgs = subprocess.run(['sh', os.path.join(ROOT, 'scripts', 'deps.sh'), '--list', group],
                          capture_output=True, text=True, check=True).stdout.split()
    if not pkgs:
        missing.append(f'group {group} lists no packages')
    if f'`make deps-{group}`' not in usage:
        missing.append(f'`make deps-{group}`')
    missing += [f'{p} ({group})' for p in pkgs if not re.search(r'(?<![\w.-])' + re.escape(p) + r'(?![\w.-])', usage)]
check('deps-groups (scripts/deps.sh packages named in docs/usage.md)', not missing,
      'not in docs/usage.md: ' + ', '.join(missing))
sys.exit(0)
