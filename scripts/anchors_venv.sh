#!/bin/sh
# scripts/anchors_venv.sh [DIR] — today's anchors beside the old ones: a virtual environment of
# the project (default build/venv-anchors, under the ignored build tree) holding current PyTorch
# and timm from PyPI, pinned below. `make deps-anchors` runs it. `posbench bench` times its
# PyTorch step (eager and torch.compile) beside Debian's PyTorch 1.13 when DIR/bin/python
# exists, and `posbench crosscheck --init timm` initialises the twin with timm's own functions
# there. Debian's /usr/bin/python3 (PyTorch 1.13) stays the tests' gradient oracle.
#
# Size: PyPI's torch wheel for Linux x86-64 is the CUDA build (torch-2.15.0 cp311: 539 MB);
# alone it does not import (libtorch_cuda.so needs libcufile.so.0, libcusparseLt.so.0, ... from
# the nvidia-* wheels), and PyPI has no CPU-only torch wheel for Linux. With its CUDA
# dependencies the download is 2.8 GB (measured with pip download torch==2.15.0: 29 wheels);
# it then runs on the CPU of a machine without a GPU. Installed the venv takes 5.5 GB; the
# install took 13 min on 2 cores shared with other work (load average 12), the download 62 s. torch.compile on the CPU needs a C++
# compiler (gcc, there for the build anyway). PYTHON picks the interpreter the venv is built
# from (default python3; the wheels are cp311 for Python 3.11).
# Exit 0 when DIR/bin/python imports both at the pinned versions, 1 with the reason otherwise.
set -eu
TORCH_VERSION=${ANCHORS_TORCH_VERSION:-2.15.0}
TIMM_VERSION=${ANCHORS_TIMM_VERSION:-1.0.31}
DIR=${1:-build/venv-anchors}
PY=${PYTHON:-python3}
check() {
    "$DIR/bin/python" -c "import sys, torch, timm
sys.exit(0 if (torch.__version__.split('+')[0], timm.__version__) == ('$TORCH_VERSION', '$TIMM_VERSION') else 3)" 2>/dev/null
}
if [ -x "$DIR/bin/python" ] && check; then
    echo "anchors: torch $TORCH_VERSION and timm $TIMM_VERSION already in $DIR"
    exit 0
fi
if [ ! -x "$DIR/bin/python" ]; then
    "$PY" -m venv "$DIR" || { echo "anchors: $PY -m venv $DIR failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
fi
echo "anchors: installing torch==$TORCH_VERSION (with its CUDA libraries, 2.8 GB from PyPI) and timm==$TIMM_VERSION into $DIR"
if ! "$DIR/bin/python" -m pip install --quiet "torch==$TORCH_VERSION" "timm==$TIMM_VERSION" numpy; then
    echo "anchors: pip could not install torch==$TORCH_VERSION timm==$TIMM_VERSION into $DIR" >&2
    exit 1
fi
if ! check; then
    echo "anchors: $DIR/bin/python does not import torch $TORCH_VERSION and timm $TIMM_VERSION after the install:" >&2
    "$DIR/bin/python" -c "import torch, timm" >&2 || true
    exit 1
fi
"$DIR/bin/python" -c "import torch, timm; print('anchors: torch', torch.__version__, '(cuda', torch.version.cuda, 'built in; runs on the CPU)', 'and timm', timm.__version__, 'in $DIR')"
