// datasets/speech/mfcc.h — MFCC features of 16 kHz audio: one 40-coefficient frame per 10 ms,
// so a 1-second clip is 100 frames (tokens). Computed in two stages so that training
// augmentation can work between them on linear energies: mel power (FFT, filterbank) once per
// run, then log + DCT for each batch.
// The definition, exactly (tests/mfcc_reference.py computes the same independently in numpy):
//   frames: T = n / 160 (integer division) for n samples; frame t covers samples
//     [160 t - 160, 160 t + 320) (480 samples = 30 ms, centred on the t-th 10 ms hop), samples
//     outside [0, n) are zero;
//   window: periodic Hann, w[i] = 0.5 - 0.5 cos(2 pi i / 480);
//   spectrum: 512-point real FFT (FFTW, the frame zero-padded), power P_k = |X_k|^2, k = 0..256;
//   mel filterbank: 40 triangles with edges equally spaced on the HTK mel scale
//     mel(f) = 2595 log10(1 + f / 700) from 20 Hz to 8000 Hz (42 edges e_0..e_41); filter m
//     weighs bin k (frequency f_k = 16000 k / 512) by max(0, min((f_k - e_m) / (e_{m+1} - e_m),
//     (e_{m+2} - f_k) / (e_{m+2} - e_{m+1}))) — unnormalised; mel power E_m = sum_k w_mk P_k;
//   log: L_m = ln(E_m + 1e-6);
//   DCT: orthonormal DCT-II, c_j = s_j sum_m L_m cos(pi j (m + 1/2) / 40), s_0 = sqrt(1/40),
//     s_j = sqrt(2/40) otherwise; all 40 coefficients kept.
#pragma once
#include <stddef.h>

#define MFCC_SAMPLE_RATE 16000
#define MFCC_HOP 160      // 10 ms
#define MFCC_WINDOW 480   // 30 ms
#define MFCC_FFT 512
#define MFCC_BINS (MFCC_FFT / 2 + 1)
#define MFCC_MELS 40
#define MFCC_COEFFS 40
#define MFCC_FMIN 20.0
#define MFCC_FMAX 8000.0
#define MFCC_LOG_FLOOR 1e-6

typedef struct {
    double window[MFCC_WINDOW];
    // Filterbank as sparse rows: filter m covers bins [first[m], first[m] + count[m]).
    int first[MFCC_MELS], count[MFCC_MELS];
    double *weights;                // (MFCC_MELS, MFCC_BINS), zero outside each filter's bins
    double dct[MFCC_COEFFS][MFCC_MELS];
    void *plan;                     // fftw_plan (FFTW_ESTIMATE: the same algorithm every run)
} mfcc_plan;

// Builds the window, filterbank, DCT matrix and FFTW plan. Not thread-safe (FFTW planning);
// the plan is then used from any thread. Returns 0, or -1 with err set.
int mfcc_plan_make(mfcc_plan *p, char *err, size_t errlen);
void mfcc_plan_free(mfcc_plan *p);

// Frames of n samples: n / 160.
int mfcc_frame_count(long n);

// Mel power of T frames: frame t covers samples [start + 160 t, start + 160 t + 480) of x (n),
// zero outside [0, n). The standard framing is start = -160. out (T, MFCC_MELS).
// Thread-safe (own FFTW buffers); returns 0, or -1 when FFTW cannot allocate its buffers.
int mfcc_mel_power(const mfcc_plan *p, const float *x, long n, long start, int T, float *out);

// log + DCT of T frames of mel power: mel (T, MFCC_MELS) -> out (T, MFCC_COEFFS).
void mfcc_from_mel_power(const mfcc_plan *p, const float *mel, int T, float *out);

// Both stages with the standard framing: T = mfcc_frame_count(n) frames into out
// (T, MFCC_COEFFS). Returns T, or -1 when FFTW cannot allocate its buffers.
int mfcc_compute(const mfcc_plan *p, const float *x, long n, float *out);
