#!/bin/sh
# scripts/deps.sh [--list] [GROUP ...] — install the Debian packages posbench needs, or print
# the exact line. GROUP is build, test or data (none: all three). `make` checks only the build
# group, `make test` the test and data groups as well, `make reproduce-*` build and data, and
# `make deps` all of them (docs/usage.md "Building"). --list prints a group's packages and exits.
#
# build: what compiling, linking and running posbench needs: OpenBLAS (its OpenMP flavour),
#   libyaml, HDF5, zlib, pkg-config; speech: libsndfile (WAV), FFTW (MFCC features),
#   libespeak-ng + its voice data and libsoxr (the synthesized Speech Commands set); gnuplot
#   (`posbench plot`); one run across processes: Debian's OpenMPI (libopenmpi-dev: mpicc and
#   mpi.h, the Makefile builds core/comm_mpi.c when it finds mpicc; openmpi-bin: mpirun).
# test: h5dump (hdf5-tools); Debian's CPU PyTorch and NumPy (the gradient oracle, called as
#   /usr/bin/python3), torchvision (the augmented views' oracle, tests/views_oracle.py), SciPy
#   (the independent statistics behind the verdicts' known answers, tests/findings_reference.py),
#   h5py and pandas (python/posbench_results.py's load_runs, checked against `posbench export`
#   by tests/e2e_export.sh), Slurm (slurm-wlm: slurmctld, slurmd, sbatch & co.) and MUNGE, which
#   tests/e2e_slurm_real.sh starts as a one-node cluster of its own.
# data: Fashion-MNIST (the default dataset, and the tests' and experiments'), the King James
#   Bible (bible-kjv-text, read by bible-kjv's `bible`: the default text corpus, make data/kjv.txt).
BUILD_PACKAGES="libopenblas-dev libopenblas-openmp-dev libyaml-dev libhdf5-dev zlib1g-dev gnuplot-nox pkg-config
libsndfile1-dev libfftw3-dev libespeak-ng-dev espeak-ng-data libsoxr-dev libopenmpi-dev openmpi-bin"
TEST_PACKAGES="hdf5-tools python3-torch python3-torchvision python3-numpy python3-scipy python3-h5py python3-pandas
python3-yaml slurm-wlm munge chromium xz-utils"
DATA_PACKAGES="dataset-fashion-mnist bible-kjv-text bible-kjv"

list=0
[ "${1:-}" = --list ] && { list=1; shift; }
[ $# -eq 0 ] && set -- build test data
PACKAGES="" groups=""
for g in "$@"; do
    case "$g" in
        build) PACKAGES="$PACKAGES $BUILD_PACKAGES" ;;
        test) PACKAGES="$PACKAGES $TEST_PACKAGES" ;;
        data) PACKAGES="$PACKAGES $DATA_PACKAGES" ;;
        *) echo "scripts/deps.sh: unknown group '$g' (valid: build, test, data; none: all)" >&2; exit 2 ;;
    esac
    groups="$groups${groups:+, }$g"
done
if [ $list = 1 ]; then
    for p in $PACKAGES; do echo "$p"; done
    exit 0
fi
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
    echo "posbench: missing Debian packages ($groups):$missing" >&2
    echo "posbench: run as root:  $line" >&2
    exit 1
fi
echo "posbench: installing ($groups):$missing"
export DEBIAN_FRONTEND=noninteractive
# Update the package lists only when the install cannot find a package without it.
apt-get install -y -q --no-install-recommends $missing >/tmp/posbench-apt.log 2>&1 ||
    { apt-get update -q >>/tmp/posbench-apt.log 2>&1 &&
      apt-get install -y -q --no-install-recommends $missing >>/tmp/posbench-apt.log 2>&1; } ||
    { tail -n 20 /tmp/posbench-apt.log >&2; echo "posbench: failed: $line (log: /tmp/posbench-apt.log)" >&2; exit 1; }
