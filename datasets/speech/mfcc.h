// datasets/speech/mfcc.h — MFCC features of 16 kHz audio: 40 coefficients per 10 ms frame, in
// one of two front ends (data.mfcc). Computed in two stages so that training augmentation can
// work between them on linear energies: mel power (FFT, filterbank) once per run, then log +
// DCT for each batch.
// The definitions, exactly (tests/speech_reference.py computes the same independently in numpy):
// posbench (the default; data.mfcc=posbench):
//   frames: T = n / 160 (integer division) for n samples; frame t covers samples
//     [160 t - 160, 160 t + 320) (480 samples = 30 ms, centred on the t-th 10 ms hop), samples
//     outside [0, n) are zero; a 1-second clip is 100 frames;
//   window: periodic Hann, w[i] = 0.5 - 0.5 cos(2 pi i / 480);
//   spectrum: 512-point real FFT (FFTW, the frame zero-padded), power P_k = |X_k|^2, k = 0..256;
//   mel filterbank: 40 triangles with edges equally spaced on the HTK mel scale
//     mel(f) = 2595 log10(1 + f / 700) from 20 Hz to 8000 Hz (42 edges e_0..e_41); filter m
//     weighs bin k (frequency f_k = 16000 k / 512) by max(0, min((f_k - e_m) / (e_{m+1} - e_m),
//     (e_{m+2} - f_k) / (e_{m+2} - e_{m+1}))) (triangles in Hz) — unnormalised; mel power
//     E_m = sum_k w_mk P_k;
//   log: L_m = ln(E_m + 1e-6);
//   DCT: orthonormal DCT-II, c_j = s_j sum_m L_m cos(pi j (m + 1/2) / 40), s_0 = sqrt(1/40),
//     s_j = sqrt(2/40) otherwise; all 40 coefficients kept.
// tc_resnet (data.mfcc=tc_resnet; TC-ResNet's MFCCPreprocessor, Choi et al. 2019, as its
//   TensorFlow code computes it: tf.signal.stft(frame_length 480, frame_step 160), power
//   spectrogram, linear_to_mel_weight_matrix(64, 257, 16000, 80, 7600), log(+1e-6),
//   mfccs_from_log_mel_spectrograms(...)[..., :40]):
//   frames: T = 1 + (n - 480) / 160 for n >= 480 samples (0 otherwise); frame t covers samples
//     [160 t, 160 t + 480), no padding; a 1-second clip is 98 frames;
//   window, FFT and power as posbench;
//   mel filterbank: 64 triangles in the mel domain with edges equally spaced on the HTK mel scale
//     from 80 Hz to 7600 Hz (66 edges): filter m weighs bin k >= 1 by max(0, min((mel(f_k) - E_m)
//     / (E_{m+1} - E_m), (E_{m+2} - mel(f_k)) / (E_{m+2} - E_{m+1}))), E_i the edges in mel, bin
//     0 (DC) weight 0 (TensorFlow's rule; the mel constant cancels);
//   log as posbench;
//   DCT: TensorFlow's mfccs_from_log_mel_spectrograms: c_j = sqrt(2/64) sum_m L_m cos(pi j
//     (m + 1/2) / 64) for every j (c_0 is sqrt(2) times the orthonormal one); the first 40 kept.
// The hop is 160 samples in both; the rate evaluation's hop variant (variants.h) calls the same
// framing with another hop h: posbench frames n / h covering [h t + h/2 - 240, + 480) (centred
// on the t-th hop), tc_resnet frames 1 + (n - 480) / h covering [h t, h t + 480).
#pragma once
#include <stddef.h>

#define MFCC_SAMPLE_RATE 16000
#define MFCC_HOP 160      // 10 ms
#define MFCC_WINDOW 480   // 30 ms
#define MFCC_FFT 512
#define MFCC_BINS (MFCC_FFT / 2 + 1)
#define MFCC_MAX_MELS 64  // the largest filterbank of a front end
#define MFCC_COEFFS 40    // coefficients kept by every front end
#define MFCC_LOG_FLOOR 1e-6
#define MFCC_FRONTENDS "posbench|tc_resnet"

typedef enum { MFCC_POSBENCH = 0, MFCC_TC_RESNET = 1 } mfcc_frontend;

typedef struct {
    mfcc_frontend frontend;
    int mels;                       // filterbank size: 40 posbench, 64 tc_resnet
    double fmin, fmax;              // filterbank edges in Hz
    double window[MFCC_WINDOW];
    // Filterbank as sparse rows: filter m covers bins [first[m], first[m] + count[m]).
    int first[MFCC_MAX_MELS], count[MFCC_MAX_MELS];
    double *weights;                // (mels, MFCC_BINS), zero outside each filter's bins
    double dct[MFCC_COEFFS][MFCC_MAX_MELS];
    void *plan;                     // fftw_plan (FFTW_ESTIMATE: the same algorithm every run)
} mfcc_plan;

// The front end named by data.mfcc ("posbench", "tc_resnet"), or -1.
int mfcc_frontend_parse(const char *name);
const char *mfcc_frontend_name(mfcc_frontend f);

// Builds the window, filterbank, DCT matrix and FFTW plan of front end f. Not thread-safe (FFTW
// planning); the plan is then used from any thread. Returns 0, or -1 with err set.
int mfcc_plan_make_frontend(mfcc_plan *p, mfcc_frontend f, char *err, size_t errlen);
// The posbench front end (mfcc_plan_make_frontend(p, MFCC_POSBENCH, ...)).
int mfcc_plan_make(mfcc_plan *p, char *err, size_t errlen);
void mfcc_plan_free(mfcc_plan *p);

// Frames of n samples at hop `hop` (MFCC_HOP: the standard framing): posbench n / hop, tc_resnet
// 1 + (n - 480) / hop (0 below 480 samples).
int mfcc_frames(mfcc_frontend f, long n, int hop);
// Frames of a 1-second clip (100 posbench, 98 tc_resnet).
int mfcc_clip_frames(mfcc_frontend f);
// The first sample of frame 0 at hop `hop`: posbench hop / 2 - 240 (-160 at 10 ms), tc_resnet 0.
long mfcc_frame_start(mfcc_frontend f, int hop);
// posbench's frame count at the standard hop (n / 160), kept for its callers.
int mfcc_frame_count(long n);

// Mel power of T frames: frame t covers samples [start + 160 t, start + 160 t + 480) of x (n),
// zero outside [0, n). The standard framing is start = mfcc_frame_start(f, 160). out (T, mels).
// Thread-safe (own FFTW buffers); returns 0, or -1 when FFTW cannot allocate its buffers.
int mfcc_mel_power(const mfcc_plan *p, const float *x, long n, long start, int T, float *out);
// The same with frames every `hop` samples: frame t covers [start + hop t, start + hop t + 480).
int mfcc_mel_power_hop(const mfcc_plan *p, const float *x, long n, long start, int hop, int T, float *out);

// log + DCT of T frames of mel power: mel (T, mels) -> out (T, MFCC_COEFFS).
void mfcc_from_mel_power(const mfcc_plan *p, const float *mel, int T, float *out);

// Both stages with the standard framing: T = mfcc_frames(p->frontend, n, 160) frames into out
// (T, MFCC_COEFFS). Returns T, or -1 when FFTW cannot allocate its buffers.
int mfcc_compute(const mfcc_plan *p, const float *x, long n, float *out);
