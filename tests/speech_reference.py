#!/usr/bin/python3
"""tests/speech_reference.py — independent numpy / hashlib references for tests/test_speech.c.

  speech_reference.py mfcc IN.f32 OUT.f64 [HOP]   MFCCs (frames, 40) of the float32 samples in IN
  speech_reference.py mfcc_tc_resnet IN.f32 OUT.f64 [HOP]   the same in TC-ResNet's front end
  speech_reference.py which_set NAME...     the reference recipe's split of each clip name

The MFCC definition is datasets/speech/mfcc.h's, written here again from the formulas with
numpy's FFT (not FFTW), its own mel filterbank and DCT matrix, all in float64; the tc_resnet
front end follows TensorFlow's tf.signal code as TC-ResNet calls it (stft without padding,
linear_to_mel_weight_matrix with its 1127·ln mel scale and triangles in mel, the unnormalised
DCT-II times rsqrt(2·64), the first 40 kept). HOP (default 160) is the rate evaluation's
hop variant. which_set is
tensorflow/examples/speech_commands/input_data.py's, with hashlib's SHA-1."""
import hashlib
import math
import re
import sys

import numpy as np

SR, HOP, WIN, NFFT, MELS, COEFFS = 16000, 160, 480, 512, 40, 40


def mel(f):
    return 2595.0 * np.log10(1.0 + f / 700.0)


def hz(m):
    return 700.0 * (10.0 ** (m / 2595.0) - 1.0)


def mfcc(x, hop=HOP):
    n = len(x)
    T = n // hop
    lead = WIN // 2 - hop // 2  # frame t covers [hop t + hop // 2 - 240, + 480): centred on the t-th hop
    padded = np.concatenate([np.zeros(lead), x.astype(np.float64), np.zeros(WIN)])
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(WIN) / WIN)
    frames = np.stack([padded[t * hop: t * hop + WIN] for t in range(T)]) * window
    power = np.abs(np.fft.rfft(frames, NFFT, axis=1)) ** 2              # (T, 257)
    edges = hz(np.linspace(mel(20.0), mel(8000.0), MELS + 2))
    f = np.arange(NFFT // 2 + 1) * SR / NFFT
    fb = np.zeros((MELS, NFFT // 2 + 1))
    for m in range(MELS):
        l, c, r = edges[m], edges[m + 1], edges[m + 2]
        fb[m] = np.maximum(0.0, np.minimum((f - l) / (c - l), (r - f) / (r - c)))
    logmel = np.log(power @ fb.T + 1e-6)                                 # (T, 40)
    j = np.arange(COEFFS)[:, None]
    m = np.arange(MELS)[None, :]
    dct = np.cos(np.pi * j * (m + 0.5) / MELS) * np.where(j == 0, math.sqrt(1.0 / MELS), math.sqrt(2.0 / MELS))
    return logmel @ dct.T                                                # (T, 40)


def tf_hertz_to_mel(f):
    return 1127.0 * np.log(1.0 + f / 700.0)


def mfcc_tc_resnet(x, hop=HOP, mels=64, lower=80.0, upper=7600.0, keep=40):
    x = x.astype(np.float64)
    T = 1 + (len(x) - WIN) // hop if len(x) >= WIN else 0
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(WIN) / WIN)  # tf.signal.hann_window(periodic=True)
    frames = np.stack([x[t * hop: t * hop + WIN] for t in range(T)]) * window
    power = np.real(np.fft.rfft(frames, NFFT, axis=1) * np.conj(np.fft.rfft(frames, NFFT, axis=1)))  # magnitude_squared
    bins = NFFT // 2 + 1
    linear = np.linspace(0.0, SR / 2.0, bins)[1:]                   # bands_to_zero = 1: no DC
    spec_mel = tf_hertz_to_mel(linear)[:, None]
    edges = np.linspace(tf_hertz_to_mel(lower), tf_hertz_to_mel(upper), mels + 2)
    lo, ce, up = edges[:-2][None, :], edges[1:-1][None, :], edges[2:][None, :]
    w = np.maximum(0.0, np.minimum((spec_mel - lo) / (ce - lo), (up - spec_mel) / (up - ce)))
    w = np.concatenate([np.zeros((1, mels)), w])                     # (257, 64)
    logmel = np.log(power @ w + 1e-6)                                # (T, 64)
    k = np.arange(mels)[:, None]
    nn = np.arange(mels)[None, :]
    dct2 = 2.0 * np.cos(np.pi * k * (2 * nn + 1) / (2.0 * mels))      # unnormalised DCT-II (tf.signal.dct type 2)
    return (logmel @ dct2.T / math.sqrt(2.0 * mels))[:, :keep]       # (T, 40)


def which_set(filename, validation_percentage=10.0, testing_percentage=10.0):
    base_name = filename.rsplit("/", 1)[-1]
    hash_name = re.sub(r"_nohash_.*$", "", base_name)
    hashed = hashlib.sha1(hash_name.encode()).hexdigest()
    MAX_NUM_WAVS_PER_CLASS = 2 ** 27 - 1
    p = (int(hashed, 16) % (MAX_NUM_WAVS_PER_CLASS + 1)) * (100.0 / MAX_NUM_WAVS_PER_CLASS)
    if p < validation_percentage:
        return "validation"
    if p < testing_percentage + validation_percentage:
        return "testing"
    return "training"


if __name__ == "__main__":
    if sys.argv[1] in ("mfcc", "mfcc_tc_resnet"):
        hop = int(sys.argv[4]) if len(sys.argv) > 4 else HOP
        f = mfcc if sys.argv[1] == "mfcc" else mfcc_tc_resnet
        f(np.fromfile(sys.argv[2], dtype=np.float32), hop).astype(np.float64).tofile(sys.argv[3])
    elif sys.argv[1] == "which_set":
        for name in sys.argv[2:]:
            print(which_set(name))
    else:
        sys.exit("usage: speech_reference.py mfcc|mfcc_tc_resnet IN OUT [HOP] | which_set NAME...")
