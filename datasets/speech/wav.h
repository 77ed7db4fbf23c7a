// datasets/speech/wav.h — reading and writing 16 kHz mono audio files with libsndfile.
// Speech Commands clips and background-noise files are 16-bit PCM WAV, 16000 Hz, one channel;
// anything else (unreadable, not a sound file, another rate, more channels, empty) is refused
// with a one-line message naming the file and what would be valid.
#pragma once
#include <stddef.h>

#define SPEECH_SAMPLE_RATE 16000

// Reads every sample of path as float in [-1, 1] (libsndfile's normalised float read) into
// *samples (malloc'd; the caller frees) and their count into *n (>= 1).
// Returns 0, or -1 with err naming the file: cannot open / not a sound file (libsndfile's
// reason), an encoding other than 16-bit PCM WAV (8-bit, 24-bit, float, ...), a data chunk that
// declares more bytes than the file holds, sample rate other than 16000 Hz, channels other
// than 1, no samples, a short read.
int wav_read_mono16k(const char *path, float **samples, long *n, char *err, size_t errlen);

// Writes samples (n) as a 16-bit PCM WAV, 16000 Hz, mono: each value clipped to [-1, 1], then
// lrintf(x * 32767) (round to nearest, ties to even), so the bytes depend only on the samples.
// Returns 0, or -1 with err naming the file.
int wav_write_mono16k(const char *path, const float *samples, long n, char *err, size_t errlen);
