#!/bin/sh
# tests/e2e_folder_graph.sh — the include graph between folders has no cycle, as
# docs/architecture.md says. From every `#include "..."` line of the C, CUDA and header files
# under core/, models/, objectives/, datasets/ and bench/, resolved against the including file's
# folder, it builds two graphs and checks each with tsort (which names a loop):
#   - modules: core, models, objectives, datasets (each with its subfolders) and every folder
#     of bench/ on its own: acyclic, and layered as the docs say: core/ includes none of the
#     others, models/ and datasets/ neither objectives/ nor bench/, objectives/ not bench/, and
#     bench/config/ (the key table, the bottom of bench/) no other folder of bench/ but bench/text/
#     (the text escapers, a leaf that includes core/ only);
#   - folders, every directory on its own: acyclic (the encodings and backbones see the model
#     through models/api/, which includes only core/), with no exception.
# Then tests/architecture_check.py checks the rest of the page's claims that the tree can check
# (files named, the Layout's folders, each bench/ folder's "->" line, the registries).
# Needs only the sources (no build).
cd "$(dirname "$0")/.." || exit 1
T=$(mktemp -d /tmp/posbench-folders.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
check() { if [ "$2" -eq 0 ]; then echo "PASS $1: $3"; else echo "FAIL $1: $3"; fi; }
command -v tsort > /dev/null 2>&1 && command -v realpath > /dev/null 2>&1 ||
    { echo "SKIP folder graph: tsort or realpath missing (coreutils)"; exit 0; }

# "from-folder to-folder" for every include that leaves its folder.
find core models objectives datasets bench \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort |
while read -r f; do
    d=$(dirname "$f")
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
        t=$(realpath -m --relative-to=. "$d/$inc")
        [ -e "$t" ] || echo "MISSING $f $inc"
        td=$(dirname "$t")
        [ "$td" != "$d" ] && echo "$d $td"
    done
done | sort -u > "$T/folders"
missing=$(grep -c '^MISSING' "$T/folders")
check "every quoted include names a file" "$([ "$missing" -eq 0 ]; echo $?)" "$missing unresolved$(grep -m1 '^MISSING' "$T/folders" | sed 's/^MISSING/, e.g./')"
sed -i '/^MISSING/d' "$T/folders"
edges=$(wc -l < "$T/folders")
[ "$edges" -gt 50 ]
check "the include graph was read" $? "$edges folder edges"

# Modules: bench/<folder> stays, anything else collapses to its top-level folder.
module() { case "$1" in bench/*) echo "$1" | cut -d/ -f1-2 ;; *) echo "$1" | cut -d/ -f1 ;; esac; }
while read -r a b; do
    ma=$(module "$a") mb=$(module "$b")
    [ "$ma" != "$mb" ] && echo "$ma $mb"
done < "$T/folders" | sort -u > "$T/modules"
tsort "$T/modules" > /dev/null 2> "$T/loop"
[ ! -s "$T/loop" ]
check "no include cycle between modules (core, models, objectives, datasets, each folder of bench/)" $? \
    "$(grep -v 'input contains' "$T/loop" | sed 's/^tsort: //' | paste -sd' ')"
layer_bad=$(grep -E '^core (models|objectives|datasets|bench)|^(models|datasets) (objectives|bench)|^objectives bench|^bench/config bench/[^t]|^bench/config bench/t[^e]|^bench/text (bench|models|objectives|datasets)' "$T/modules")
[ -z "$layer_bad" ]
check "layers: core < models, datasets < objectives < bench; bench/config includes no other folder of bench/ but bench/text, which includes none" $? \
    "$(echo "$layer_bad" | paste -sd',')"

# Folders: the graph must be acyclic.
tsort "$T/folders" > /dev/null 2> "$T/loop2"
[ ! -s "$T/loop2" ]
check "no include cycle between folders" $? \
    "$(grep -v 'input contains' "$T/loop2" | sed 's/^tsort: //' | paste -sd' ')"

# The check sees a cycle: the module graph plus an edge back from core to bench/train.
{ cat "$T/modules"; echo "core bench/train"; } > "$T/planted"
tsort "$T/planted" > /dev/null 2> "$T/loop3"
[ -s "$T/loop3" ]
check "a planted cycle (core -> bench/train) is found" $? "$(grep -v 'input contains' "$T/loop3" | sed 's/^tsort: //' | paste -sd' ')"

# The rest of docs/architecture.md's checkable claims against the tree and the module graph:
# files it names exist, its Layout names every folder, each bench/ folder's "->" line is what
# that folder includes, its registries are where it says (tests/architecture_check.py).
if command -v python3 > /dev/null 2>&1 && command -v git > /dev/null 2>&1; then
    python3 tests/architecture_check.py . "$T/modules" || echo "FAIL architecture: tests/architecture_check.py exited $?"
else
    echo "SKIP architecture: python3 or git missing"
fi

# The check sees a stale page: a copy naming a file that is gone, a "->" line missing a folder
# and an objective's folder left out must fail those three checks.
if command -v python3 > /dev/null 2>&1 && command -v git > /dev/null 2>&1; then
    sed -e 's|train_history.c (the in-memory|train_gone.c (the in-memory|' \
        -e 's|^\(                 -> config/ experiment/ train/ store/ results/\) text/|\1|' \
        -e 's|mlm/ (mlm.c:|mlm (mlm.c:|' docs/architecture.md > "$T/stale.md"
    python3 tests/architecture_check.py . "$T/modules" "$T/stale.md" > "$T/stale.out" 2>&1
    failed=$(grep -c -e '^FAIL architecture: files named: .*train_gone.c' -e '^FAIL architecture: bench includes: .*run/ says' \
        -e '^FAIL architecture: registries: each of the .* objectives.*: .*mlm' "$T/stale.out")
    [ "$failed" -eq 3 ]
    check "a stale copy of the page (a gone file, a short \"->\" line, an objective's folder unnamed) fails 3 checks" $? \
        "$failed of 3: $(grep FAIL "$T/stale.out" | cut -c1-200 | paste -sd'|')"
fi
