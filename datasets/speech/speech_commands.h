// datasets/speech/speech_commands.h — Google Speech Commands v1 keyword spotting as a posbench
// dataset (data.name=speech-commands data.path=DIR), the reference recipe's task
// (tensorflow/examples/speech_commands/input_data.py, Warden 2018):
// Layout: DIR/<word>/<speaker>_nohash_<k>.wav (16-bit PCM, 16 kHz, mono, at most 1 s: shorter
//   clips are zero-padded, longer ones cut at 16000 samples), DIR/_background_noise_/*.wav
//   (at least one file of at least 1 s), and optionally DIR/validation_list.txt and
//   DIR/testing_list.txt (lines "<word>/<file>.wav"). Other folders starting with '_' are ignored.
// Classes (12): 0 _silence_, 1 _unknown_, 2 yes, 3 no, 4 up, 5 down, 6 left, 7 right, 8 on, 9 off,
//   10 stop, 11 go. Every other word folder is _unknown_. All ten words must be present.
// Splits: with both list files, the files they list are validation resp. test and all others
//   train (a listed file that does not exist is an error, file:line); without them (both absent),
//   the recipe's which_set() hash of the speaker id (split_hash.h, 10% / 10%). One list alone is
//   an error. Either way every clip of one speaker is in one split.
// _unknown_ and _silence_ per split, as the recipe: with W the split's clips of the ten words,
//   ceil(W / 10) _unknown_ clips (the first of a permutation of the split's unknown-word clips
//   drawn from rng_stream_make(59185, RNG_SPEECH_DATA, split, 0, 0); 59185 is the recipe's
//   RANDOM_SEED) and ceil(W / 10) _silence_ rows. Rows: the ten words' clips (folders in byte
//   order, files in byte order), then the unknown clips, then the silence rows.
// Features, computed once per run for every clip of the three splits (mfcc.h) in the front end
//   chosen by data.mfcc (dataset_options.mfcc_frontend; F frames per 1-second clip: 100 posbench,
//   98 tc_resnet): the mel power of the clip padded by 100 ms of zeros on each side (F + 20
//   frames), and of every noise file (the front end's framing: posbench frame j of a noise file
//   covers samples [160 j - 160, 160 j + 320), tc_resnet [160 j, 160 j + 480)). A batch row is F
//   frames of mel power -> log + DCT -> per-coefficient standardisation (c - mean) / std, mean
//   and std over the training split's word clips (unshifted, no noise), in double.
// A batch row (dataset_make_batch): frames t = 0..F-1:
//   word clip: mel power frame t - s of the clip (s = time shift in frames, 0 without
//   augmentation; frames outside the clip are zero power), plus v^2 x frames o + t of noise
//   file f when v > 0;
//   _silence_: zero plus v^2 x noise; without augmentation (evaluation, any split) each silence
//   row has a fixed cut drawn once from rng_stream_make(59185, RNG_SPEECH_DATA, split, 1, row):
//   f = rng_below(files), o = rng_below(frames_f - F + 1), v = rng_uniform.
// Training augmentation (augment_config), draws from rng_stream_make(seed, RNG_AUGMENT, epoch,
//   step, b) in this order: s = rng_below(2 S + 1) - S with S = time_shift_ms / 10 (only when
//   S > 0; word clips only); then v: _silence_ rng_uniform (the recipe's uniform(0, 1)); word
//   clips: rng_uniform < background_frequency ? rng_uniform x background_volume : 0 (only when
//   background_frequency > 0); then, when v > 0, f = rng_below(files), o = rng_below(frames_f - F + 1).
//   Deviations from the recipe, both to keep the features computed once per run: the shift is in
//   whole 10 ms frames (21 values for 100 ms, the recipe any of 3201 samples), and noise is mixed
//   in mel power (|X + vN|^2 taken as |X|^2 + v^2 |N|^2, the cross term's expectation; no
//   clipping to [-1, 1]).
#pragma once
#include "../dataset.h"
#include "mfcc.h"
#include "split_hash.h"

#define SPEECH_CLASSES 12
#define SPEECH_CLIP_SAMPLES 16000
#define SPEECH_FRAMES 100          // tokens per 1-second clip with data.mfcc=posbench (a store's: st->frames)
#define SPEECH_MAX_FRAMES 100      // the most of any front end (mfcc_clip_frames)
#define SPEECH_SHIFT_FRAMES 10     // the padding of stored clips: shifts up to 100 ms
#define SPEECH_DATA_SEED 59185u
#define SPEECH_NOISE_DIR "_background_noise_"

extern const char *const speech_class_names[SPEECH_CLASSES];

// The features of every used clip of one directory; shared (reference-counted) by the datasets
// of its splits, so a run computes them once.
typedef struct speech_store {
    int refs;
    char dir[512];
    mfcc_plan plan;             // its front end (plan.frontend, plan.mels)
    int frames;                 // F: frames of a 1-second clip in that front end
    int n_rows;                 // rows of all three splits
    int32_t *label;             // (n_rows)
    uint8_t *split;             // (n_rows) speech_split
    int32_t *mel_row;           // (n_rows) row in mel, -1 for _silence_
    char **file;                // (n_rows) path relative to dir ("" for _silence_)
    float *mel;                 // (clips, F + 2 SPEECH_SHIFT_FRAMES, plan.mels)
    int32_t *cut_file, *cut_offset; // (n_rows) fixed _silence_ cut (evaluation)
    float *cut_volume;          // (n_rows)
    int n_noise;
    char **noise_name;          // (n_noise) file names in _background_noise_, byte order
    int *noise_frames;          // (n_noise)
    float **noise_mel;          // (n_noise) each (noise_frames, plan.mels)
    double mean[MFCC_COEFFS], std[MFCC_COEFFS];
    int split_count[3][SPEECH_CLASSES];
    int used_lists;             // 1: validation_list.txt / testing_list.txt decided the split
    char *prints;               // content fingerprints (datasets/data_files.h): the clips, the lists
    long long max_bytes;        // data.max_bytes it was built with (dataset_options)
    int refuse_long_clips;      // data.long_clips=refuse it was built with
} speech_store;

// Frames stored per clip: F + 2 SPEECH_SHIFT_FRAMES.
static inline int speech_stored_frames(const speech_store *st) { return st->frames + 2 * SPEECH_SHIFT_FRAMES; }

// dataset_load for "speech-commands" (split "train", "validation" or "test"). *ds zeroed by the
// caller; on failure it stays zeroed and err holds a one-line message naming the file.
// opt->path: the folder (no default); opt->mfcc_frontend: the MFCC front end (data.mfcc);
// opt->max_bytes: the largest split list read; opt->refuse_long_clips: clips longer than 1 s
// (SPEECH_CLIP_SAMPLES) are cut to their first second with a warning on stderr naming how many
// and the first (0, data.long_clips=cut: the reference recipe's desired_samples, which cuts
// silently), or refused, the load failing with a message naming the first such clip and its
// length (1, data.long_clips=refuse).
// A store for the same directory and front end still held by another dataset is shared, not
// recomputed (its clips were read under the options of the load that built it).
int speech_commands_load(dataset *ds, const dataset_options *opt, const char *split, char *err, size_t errlen);
// The `wavs` fingerprint of a Speech Commands folder (datasets/data_files.h): the CRC-32 of
// "<folder>/<file> <size> <crc32>\n" for every .wav of every word folder and of
// _background_noise_ (folders, then files, in byte order), and their total bytes. 0, or -1 with
// err (a clip that is not a regular file is not listed; one that cannot be read is an error).
int speech_commands_wav_print(const char *dir, long long max_bytes, long long *bytes, uint32_t *crc, char *err, size_t errlen);
// Drops ds's reference to its store (frees it with the last one) and its row map.
void speech_commands_release(dataset *ds);
// The batch of dataset_make_batch for an audio dataset: out (B, F, MFCC_COEFFS).
void speech_make_batch(const dataset *ds, const int *indices, int B, const augment_config *aug, uint32_t seed,
                       uint32_t epoch, uint32_t step, float *out, int32_t *labels);
