// datasets/speech/variants.h — evaluation-time variants of a speech split for CAPE's claims on
// durations and rates (docs/cape.md §5.2; eval.speech_durations,
// eval.speech_rates, eval.speech_rate_mode): the same rows, labels and 40 MFCCs per frame in the
// store's front end (mfcc.h, data.mfcc; F frames per second of audio), but a different number
// of frames per row. Each variant is computed once (its features kept, standardised with the
// training statistics of the store) and read back in batches. Every draw is a counter-RNG
// address, so a variant depends only on the dataset, its value and the data.
//
// Duration D seconds (frames = the front end's frames of D seconds of audio: 100·D posbench,
//   100·D - 2 tc_resnet): every row becomes a D-second clip of background noise
//   with the row's 1-second clip at a random frame offset. Row i draws from
//   rng_stream_make(SPEECH_DATA_SEED, RNG_SPEECH_DATA, 3, D, i), in this order: the noise file
//   f = rng_below(files), its start o = rng_below(frames_f) (the file is read cyclically from
//   o), the volume v (_silence_ rows: rng_uniform, as their evaluation cuts; word clips:
//   rng_uniform·volume, volume = data.background_volume), the clip's offset k =
//   rng_below(frames - F + 1). Mel power frame t = v²·noise_f[(o + t) mod frames_f] + the clip's
//   frame t - k when 0 <= t - k < F (the unshifted 1-second clip, as at evaluation; noise added
//   in mel power as in training, speech_commands.h). _silence_ rows have noise only.
// Rate P percent by resampling (eval.speech_rate_mode resample; P/100 times as fast: 80 = 0.8x,
//   125 = 1.25x): every word clip is read again
//   from its WAV file, cut or zero-padded to 16000 samples as the loader does, resampled by
//   libsoxr (HQ) from 16000 Hz to 16000·100/P Hz and read as 16 kHz audio, i.e. played P/100
//   times as fast (pitch changes with the tempo, as a speed change): n' = round(16000·100/P)
//   samples, frames = speech_rate_frames(P) = the front end's frames of n' samples (posbench
//   n' / 160: 80 -> 125, 125 -> 80), standard framing, frames 10 ms apart in the stretched audio.
//   _silence_ rows: their evaluation cut (file, volume), the offset lowered to fit `frames`.
// Rate P percent by the STFT hop (eval.speech_rate_mode hop; CAPE §5.2.2 "Variable STFT Hop
//   Distance": "We perform this augmentation by tuning the short-time Fourier Transform (STFT)
//   hop distance when computing the audio features. Positions remain tied to the original audio
//   timestamps."): the audio is not changed; every word clip is read again from its WAV (cut or
//   zero-padded to 16000 samples) and its features are computed with the hop h = round(160·P/100)
//   samples (80 -> 128 = 8 ms, 125 -> 200 = 12.5 ms; the 30 ms window and 512-point FFT kept),
//   frames = speech_hop_frames(P) = the front end's frames of 16000 samples at hop h (posbench
//   16000 / h: 80 -> 125, 125 -> 80; framing of mfcc.h at hop h), so the frame count moves as with
//   resampling but pitch and tempo stay; frame_seconds = h / 16000, the frames' true spacing in
//   the original audio (CAPE 1D positions follow it; index-based encodings see only the count).
//   _silence_ rows: the samples of their evaluation cut (noise file, start 160·offset, 16000
//   samples, volume v) read again from the noise file and framed at hop h, scaled by v².
#pragma once
#include "../dataset.h"
#include "mfcc.h"
#include <stdint.h>

typedef struct speech_variant {
    int frames;          // tokens per row
    float frame_seconds; // seconds of original audio between frames (0.01; hop variant: h / 16000)
    int n;               // rows (those of the dataset)
    float *features;     // (n, frames, MFCC_COEFFS), standardised as the dataset's batches
    int32_t *labels;     // (n)
} speech_variant;

// Frames of the duration, rate (resample) and rate (hop) variants in front end f; the hop.
int speech_duration_frames(mfcc_frontend f, int seconds);
int speech_rate_frames(mfcc_frontend f, int percent);
int speech_hop_samples(int percent);
int speech_hop_frames(mfcc_frontend f, int percent);

// Build a variant of audio dataset ds (any split). 0, or -1 with err naming the file or the
// problem (out of memory, a WAV that no longer reads, libsoxr failing).
int speech_variant_duration(const dataset *ds, int seconds, float volume, speech_variant *v, char *err, size_t errlen);
int speech_variant_rate(const dataset *ds, int percent, speech_variant *v, char *err, size_t errlen);
int speech_variant_hop(const dataset *ds, int percent, speech_variant *v, char *err, size_t errlen);
// Rows rows[0..B) of v into out (B, frames, MFCC_COEFFS) and labels (B).
void speech_variant_batch(const speech_variant *v, const int *rows, int B, float *out, int32_t *labels);
void speech_variant_free(speech_variant *v);
