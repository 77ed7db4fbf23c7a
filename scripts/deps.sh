#!/bin/sh
# scripts/deps.sh — install the Debian packages posbench needs, or print the exact line.
# Build: OpenBLAS (its OpenMP flavour), libyaml, HDF5 (+ h5dump), zlib, gnuplot; speech data: libsndfile
# (WAV), FFTW (MFCC features), libespeak-ng + its voice data and libsoxr (the synthesized Speech
# Commands set); data: Fashion-MNIST, the King James Bible (bible-kjv-text, read by bible-kjv's
# `bible`: the default text corpus, make data/kjv.txt);
# one run across processes: Debian's OpenMPI (libopenmpi-dev: mpicc and mpi.h, the Makefile builds
# core/comm_mpi.c when it finds mpicc; openmpi-bin: mpirun);
# results in Python: h5py and pandas (python/posbench_results.py's load_runs, checked against
# `posbench export` by tests/e2e_export.sh);
# tests: Debian's CPU PyTorch and NumPy (the gradient oracle, called as /usr/bin/python3), torchvision (the
# augmented views' oracle, tests/views_oracle.py) and SciPy (the
# independent statistics behind the verdicts' known answers, tests/findings_reference.py), Slurm
# (slurm-wlm: slurmctld, slurmd, sbatch & co.) and MUNGE, which tests/e2e_slurm_real.sh starts
# as a one-node cluster of its own.
PACKAGES="libopenblas-dev libopenblas-openmp-dev libyaml-dev libhdf5-dev hdf5-tools zlib1g-dev gnuplot-nox pkg-config
libsndfile1-dev libfftw3-dev libespeak-ng-dev espeak-ng-data libsoxr-dev
dataset-fashion-mnist bible-kjv-text bible-kjv python3-torch python3-torchvision python3-numpy python3-scipy python3-h5py
python3-pandas libopenmpi-dev openmpi-bin
slurm-wlm munge chromium"
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
    echo "posbench: missing Debian packages:$missing" >&2
    echo "posbench: run as root:  $line" >&2
    exit 1
fi
echo "posbench: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# Update the package lists only when the install cannot find a package without it.
apt-get install -y -q --no-install-recommends $missing >/tmp/posbench-apt.log 2>&1 ||
    { apt-get update -q >>/tmp/posbench-apt.log 2>&1 &&
      apt-get install -y -q --no-install-recommends $missing >>/tmp/posbench-apt.log 2>&1; } ||
    { tail -n 20 /tmp/posbench-apt.log >&2; echo "posbench: failed: $line (log: /tmp/posbench-apt.log)" >&2; exit 1; }
