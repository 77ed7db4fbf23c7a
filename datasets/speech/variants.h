// datasets/speech/variants.h — evaluation-time variants of a speech split for CAPE's claims on
// durations and rates (papers/cape-continuous-augmented-pe.txt §5.2; eval.speech_durations,
// eval.speech_rates): the same rows, labels and 40 MFCCs per 10 ms frame, but a different number
// of frames per row. Each variant is computed once (its features kept, standardised with the
// training statistics of the store) and read back in batches. Every draw is a counter-RNG
// address, so a variant depends only on the dataset, its value and the data.
//
// Duration D seconds (frames = 100·D): every row becomes a D-second clip of background noise
//   with the row's 1-second clip at a random frame offset. Row i draws from
//   rng_stream_make(SPEECH_DATA_SEED, RNG_SPEECH_DATA, 3, D, i), in this order: the noise file
//   f = rng_below(files), its start o = rng_below(frames_f) (the file is read cyclically from
//   o), the volume v (_silence_ rows: rng_uniform, as their evaluation cuts; word clips:
//   rng_uniform·volume, volume = data.background_volume), the clip's offset k =
//   rng_below(frames - 99). Mel power frame t = v²·noise_f[(o + t) mod frames_f] + the clip's
//   frame t - k when 0 <= t - k < 100 (the unshifted 1-second clip, as at evaluation; noise added
//   in mel power as in training, speech_commands.h). _silence_ rows have noise only.
// Rate P percent (P/100 times as fast: 80 = 0.8x, 125 = 1.25x): every word clip is read again
//   from its WAV file, cut or zero-padded to 16000 samples as the loader does, resampled by
//   libsoxr (HQ) from 16000 Hz to 16000·100/P Hz and read as 16 kHz audio, i.e. played P/100
//   times as fast (pitch changes with the tempo, as a speed change): n' = round(16000·100/P)
//   samples, frames = speech_rate_frames(P) = n' / 160 (80 -> 125, 125 -> 80), standard framing.
//   _silence_ rows: their evaluation cut (file, volume), the offset lowered to fit `frames`.
#pragma once
#include "../dataset.h"
#include <stdint.h>

typedef struct speech_variant {
    int frames;          // tokens per row
    int n;               // rows (those of the dataset)
    float *features;     // (n, frames, MFCC_COEFFS), standardised as the dataset's batches
    int32_t *labels;     // (n)
} speech_variant;

// Frames of the duration and rate variants.
int speech_duration_frames(int seconds);
int speech_rate_frames(int percent);

// Build a variant of audio dataset ds (any split). 0, or -1 with err naming the file or the
// problem (out of memory, a WAV that no longer reads, libsoxr failing).
int speech_variant_duration(const dataset *ds, int seconds, float volume, speech_variant *v, char *err, size_t errlen);
int speech_variant_rate(const dataset *ds, int percent, speech_variant *v, char *err, size_t errlen);
// Rows rows[0..B) of v into out (B, frames, MFCC_COEFFS) and labels (B).
void speech_variant_batch(const speech_variant *v, const int *rows, int B, float *out, int32_t *labels);
void speech_variant_free(speech_variant *v);
