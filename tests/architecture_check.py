#!/usr/bin/python3
"""tests/architecture_check.py ROOT MODULE_EDGES [PAGE] — the claims of docs/architecture.md that the code
can check, one PASS/FAIL line each (tests/e2e_folder_graph.sh runs it with its module graph:
"from to" lines, a bench/ folder on its own, anything else its top-level folder; PAGE, default
ROOT/docs/architecture.md, lets the test plant errors in a copy):
  files named      every file the page names (model.c, cuda/graph_cuda.cu, objectives/mae/decoder.c,
                   ...) is a tracked file: a bare name somewhere in the tree, a path as the end of
                   one (patterns such as <family>_cpu.c are not names);
  layout folders   the Layout block names every top-level folder of the tree, every folder of
                   bench/ as an entry of its own, and every other source folder (cpu/, posenc/,
                   mae/, ...), and names no bench/ folder that does not exist;
  bench files      the Layout block names every source file of bench/ (.c, .py: the application
                   says what each of its parts is);
  bench includes   each bench/ folder's "->" line lists exactly the bench/ folders it includes
                   (the module graph; text in parentheses is commentary and not read);
  registries       each X-macro table the Registries paragraph names (`OBJECTIVE_KINDS` in
                   objectives/objective.h, ...) is defined in that file, and every objective has its
                   folder objectives/<name>/, named in the Layout block; every encoding and backbone
                   file (models/posenc/*.c, models/backbones/*.c) is named there."""
import os
import re
import subprocess
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else '.'
EDGES = sys.argv[2] if len(sys.argv) > 2 else None
PAGE = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, 'docs/architecture.md')
failures = 0
OTHER_PROJECTS = {'llm.c'}  # names the page compares with, not files of this tree


def check(name, ok, why):
    global failures
    print(f"{'PASS' if ok else 'FAIL'} architecture: {name}{'' if ok else ': ' + why}")
    failures += 0 if ok else 1


def tracked_files():
    out = subprocess.run(['git', 'ls-files'], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [f for f in out.split('\n') if f]


def layout_block(text):
    """The fenced block under '## Layout'."""
    start = text.index('## Layout')
    a = text.index('```', start)
    b = text.index('```', a + 3)
    return text[a + 3:b]


def files_named(text, files):
    basenames = {os.path.basename(f) for f in files}
    missing = []
    for tok in sorted(set(re.findall(r'[A-Za-z0-9_./<>*-]+\.(?:c|h|cu|cuh|cpp|py|sh|gp|golden)\b', text))):
        if any(ch in tok for ch in '<>*') or tok in OTHER_PROJECTS:
            continue  # a pattern (<family>_cpu.c, test_cuda_*) or another project's name, not a file
        path = re.sub(r'^(\.\./)+', '', tok.lstrip('./') if tok.startswith('./') else tok)
        if '/' not in path:
            ok = path in basenames
        else:
            ok = path in files or any(f.endswith('/' + path) for f in files)
        if not ok:
            missing.append(tok)
    return missing


def bench_entries(block):
    """{folder: (entry text, '->' list or None)} of the bench/ entries ('  name/   ...' lines)."""
    lines = block.split('\n')
    entries, current, arrow_indent = {}, None, None
    for line in lines:
        m = re.match(r'^  ([a-z]+)/\s', line)
        if m:
            current = m.group(1)
            entries[current] = [line, None]
            arrow_indent = None
            continue
        if re.match(r'^[a-z]+/', line):  # the next top-level folder
            current = None
            continue
        if current is None:
            continue
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith('->'):
            entries[current][1] = stripped[2:]
            arrow_indent = indent
        elif arrow_indent is not None and indent > arrow_indent:
            entries[current][1] += ' ' + stripped
        else:
            arrow_indent = None
            entries[current][0] += '\n' + line
    return entries


def arrow_folders(arrow):
    """The folder names of a '->' list, its parenthesised commentary left out."""
    depth, plain = 0, []
    for ch in arrow:
        depth += ch == '('
        if depth == 0:
            plain.append(ch)
        depth -= ch == ')' and depth > 0
    return set(re.findall(r'\b([a-z]+)/', ''.join(plain)))


def main():
    text = open(PAGE, encoding='utf-8').read()
    files = tracked_files()
    block = layout_block(text)

    missing = files_named(text, files)
    check('files named', not missing, 'docs/architecture.md names files the tree does not hold: ' + ', '.join(missing))

    top = sorted({f.split('/')[0] for f in files if '/' in f and not f.startswith('.')})
    top_missing = [d for d in top if not re.search(r'^' + re.escape(d) + r'/', block, re.M)]
    check('layout folders: every top-level folder', not top_missing,
          'not in the Layout block (a line starting with NAME/): ' + ', '.join(top_missing))
    entries = bench_entries(block)
    bench_dirs = sorted({f.split('/')[1] for f in files if f.startswith('bench/') and f.count('/') >= 2})
    check('layout folders: every bench/ folder has its entry', set(bench_dirs) == set(entries),
          f'folders without an entry: {sorted(set(bench_dirs) - set(entries))}, '
          f'entries without a folder: {sorted(set(entries) - set(bench_dirs))}')
    src = re.compile(r'\.(c|h|cu|cuh|cpp)$')
    sub_dirs = sorted({os.path.dirname(f) for f in files if src.search(f) and f.count('/') >= 2
                       and not f.startswith(('bench/', 'tests/'))})
    sub_missing = [d for d in sub_dirs if os.path.basename(d) + '/' not in block]
    check('layout folders: every source folder below the top', not sub_missing,
          'not named (as NAME/) in the Layout block: ' + ', '.join(sub_missing))

    unnamed = [f for f in files if f.startswith('bench/') and re.search(r'\.(c|py)$', f)
               and not re.search(r'(?<![\w.])' + re.escape(os.path.basename(f)) + r'\b', block)]
    check('bench files: the Layout block names every source file of bench/', not unnamed, 'not named: ' + ', '.join(unnamed))

    if EDGES:
        actual = {}
        for line in open(EDGES, encoding='utf-8'):
            a, b = line.split()
            if a.startswith('bench/') and b.startswith('bench/'):
                actual.setdefault(a.split('/')[1], set()).add(b.split('/')[1])
        wrong = []
        for name, (_, arrow) in sorted(entries.items()):
            if not os.path.isdir(os.path.join(ROOT, 'bench', name)) or not any(
                    src.search(f) for f in files if f.startswith(f'bench/{name}/')):
                continue  # experiments/: no sources
            said = arrow_folders(arrow) if arrow is not None else None
            real = actual.get(name, set())
            if said is None:
                wrong.append(f'{name}/ has no "->" line (includes {sorted(real)})')
            elif said != real:
                wrong.append(f'{name}/ says {sorted(said)}, includes {sorted(real)}')
        check('bench includes: each "->" line lists what its folder includes', not wrong, '; '.join(wrong))

    reg_text = text[text.index('**Registries.**'):]
    pairs = re.findall(r'`(\w+_KINDS)`\s+in\s+([\w/.]+\.h)', reg_text[:reg_text.index('\n\n')])
    bad = []
    for macro, path in pairs:
        full = os.path.join(ROOT, path)
        body = open(full, encoding='utf-8').read() if os.path.isfile(full) else ''
        if not re.search(r'#define\s+' + macro + r'\(X\)', body):
            bad.append(f'{macro} in {path}')
    check(f'registries: the {len(pairs)} tables named are defined where the page says', len(pairs) >= 5 and not bad,
          f'{len(pairs)} named (want 5 or more); not defined there: ' + ', '.join(bad))

    objective_h = open(os.path.join(ROOT, 'objectives/objective.h'), encoding='utf-8').read()
    kinds = re.search(r'#define OBJECTIVE_KINDS\(X\)(.*)', objective_h).group(1)
    objectives = re.findall(r'X\((\w+)\)', kinds)
    lost = [o for o in objectives if not os.path.isdir(os.path.join(ROOT, 'objectives', o)) or o + '/' not in block]
    check(f'registries: each of the {len(objectives)} objectives has its folder, named in the Layout block',
          len(objectives) > 0 and not lost, 'missing folder or not named: ' + ', '.join(lost))
    modules = sorted(f for f in files if re.match(r'models/(posenc|backbones)/[^/]+\.c$', f))
    unnamed = [f for f in modules if not re.search(r'\b' + re.escape(os.path.basename(f)) + r'\b', block)]
    check(f'registries: each of the {len(modules)} encoding and backbone files is named in the Layout block',
          len(modules) > 0 and not unnamed, 'not named: ' + ', '.join(unnamed))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
