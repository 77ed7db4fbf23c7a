#!/bin/sh
# tests/e2e_call_graph.sh — no call circle between the C files of the tree (docs/architecture.md):
# from the built objects (nm: the symbols each defines and the ones it calls), the graph "file A
# calls a function or reads a table defined in file B"; a strongly connected set of two or more
# files is a circle (A dispatches to B and B calls back into A, directly or around a loop). What
# a dispatcher's entries call back lives in a file below both (models/model_view.c,
# models/model_dropout.c, bench/report/plot_figure.c). KNOWN may name a folder whose circles are
# allowed while one is being broken (none now); any other circle fails, naming its files; so
# does a known one that is gone (its KNOWN line is then stale). A planted edge (core/common.c calling bench/train/train.c) must be found.
cd "$(dirname "$0")/.." || exit 1
for tool in nm python3; do
    command -v $tool > /dev/null 2>&1 || { echo "SKIP call graph: $tool missing"; exit 0; }
done
[ -f build/core/common.o ] || { echo "FAIL call graph: build/core/common.o missing (make builds it)"; exit 0; }
python3 - << 'EOF'
import collections, os, subprocess, sys
KNOWN = []  # folders ("models/") whose circles are allowed; each line says which circle and why
objs = []
for root, _, files in os.walk("build"):
    for f in files:
        o = os.path.join(root, f)[len("build/"):]
        if o.endswith(".o") and not o.startswith(("tests/", "third_party/", "gpu-bundle/")) and "/cuda/" not in o \
                and os.path.exists(o[:-2] + ".c") and not o.endswith("cli/main.o"):
            objs.append(o)
defs, refs = {}, {}
for o in sorted(objs):
    out = subprocess.run(["nm", "build/" + o], capture_output=True, text=True, check=True).stdout
    d, r = set(), set()
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "TDBR":
            d.add(p[2])
        elif len(p) == 2 and p[0] == "U":
            r.add(p[1])
    defs[o], refs[o] = d, r
owner = {s: o for o, d in defs.items() for s in d}

def circles(extra=()):
    g = collections.defaultdict(set)
    for o, r in refs.items():
        for s in r:
            if s in owner and owner[s] != o:
                g[o].add(owner[s])
    for a, b in extra:
        g[a].add(b)
    sys.setrecursionlimit(100000)
    index, low, stack, on, found, n = {}, {}, [], set(), [], [0]
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(x[:-2] + ".c" for x in comp))
    for v in sorted(defs):
        if v not in index:
            visit(v)
    return found

def check(name, ok, detail):
    print("%s call graph: %s: %s" % ("PASS" if ok else "FAIL", name, detail))

found = circles()
known = [c for c in found if any(all(f.startswith(k) for f in c) for k in KNOWN)]
other = [c for c in found if c not in known]
check("no call circle between C files but the known ones", not other and len(objs) > 100,
      "%d files read; known: %s; other: %s" % (len(objs), " | ".join(" ".join(c) for c in known) or "none",
                                             " | ".join(" ".join(c) for c in other) or "none"))
gone = [k for k in KNOWN if not any(all(f.startswith(k) for f in c) for c in known)]
check("every known circle still exists (else its KNOWN line is stale)", not gone, "stale: %s" % (" ".join(gone) or "none"))
planted = circles([("core/common.o", "bench/train/train.o")])
hit = [c for c in planted if "core/common.c" in c and "bench/train/train.c" in c]
check("a planted edge (core/common.c calling bench/train/train.c) closes a circle that is found", bool(hit),
      "%d files in it" % (len(hit[0]) if hit else 0))
EOF
