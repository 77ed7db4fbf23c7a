#!/bin/sh
# scripts/cudnn_frontend.sh DIR — fetches the headers of NVIDIA's cuDNN frontend (header-only
# C++17: the graph API core/cuda/attention_cudnn.cpp is written against) into DIR/include, from
# PyPI's nvidia-cudnn-frontend wheel (its include/ folder; the wheel's Python module is not used).
# `make deps-gpu` runs it with DIR = build/third_party/cudnn_frontend; the Makefile compiles the
# cuDNN attention route in when DIR/include/cudnn_frontend.h exists. Nothing is copied into the
# repository. CUDNN_FRONTEND_VERSION picks the release (default below, the one the route was
# written and compiled against). Exit 0 when the headers are in place, 1 with the reason when pip
# or the wheel failed (the build then compiles the route out and says why).
set -eu
VERSION=${CUDNN_FRONTEND_VERSION:-1.32.0}
DIR=${1:?usage: scripts/cudnn_frontend.sh DIR}
if [ -f "$DIR/include/cudnn_frontend.h" ] && [ "$(cat "$DIR/VERSION" 2>/dev/null)" = "$VERSION" ]; then
    echo "cudnn-frontend: $VERSION headers already in $DIR/include"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$tmp" "nvidia-cudnn-frontend==$VERSION" > "$tmp/pip.log" 2>&1; then
    echo "cudnn-frontend: pip could not fetch nvidia-cudnn-frontend==$VERSION (the cuDNN attention route stays compiled out):" >&2
    tail -n 5 "$tmp/pip.log" >&2
    exit 1
fi
wheel=$(ls "$tmp"/nvidia_cudnn_frontend-*.whl 2>/dev/null | head -n 1)
[ -n "$wheel" ] || { echo "cudnn-frontend: pip left no wheel in $tmp" >&2; exit 1; }
python3 - "$wheel" "$tmp/x" <<'EOP'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    names = [n for n in z.namelist() if n.startswith('include/') and not n.endswith('/')]
    z.extractall(sys.argv[2], names)
EOP
if [ ! -f "$tmp/x/include/cudnn_frontend.h" ]; then
    echo "cudnn-frontend: $(basename "$wheel") carries no include/cudnn_frontend.h (the route stays compiled out)" >&2
    exit 1
fi
mkdir -p "$DIR"
rm -rf "$DIR/include"
mv "$tmp/x/include" "$DIR/include"
echo "$VERSION" > "$DIR/VERSION"
echo "cudnn-frontend: $VERSION headers ($(find "$DIR/include" -type f | wc -l) files) in $DIR/include"
