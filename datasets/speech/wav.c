// datasets/speech/wav.c — 16 kHz mono WAV reading and writing through libsndfile; the checks
// and one-line messages for files that are not such audio (contract in wav.h).
#include "wav.h"
#include "../file_read.h"
#include <sndfile.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wav_read_mono16k(const char *path, float **samples, long *n, char *err, size_t errlen) {
    *samples = NULL;
    *n = 0;
    SF_INFO info;
    memset(&info, 0, sizeof info);
    SNDFILE *f = sf_open(path, SFM_READ, &info);
    if (!f) {
        dataset_set_err(err, errlen, "%s: cannot read as audio: %s (a 16-bit PCM WAV, 16000 Hz, mono is expected)",
                        path, sf_strerror(NULL));
        return -1;
    }
    const char *why = NULL;
    char detail[128] = "";
    if (info.samplerate != SPEECH_SAMPLE_RATE) {
        why = "sample rate";
        snprintf(detail, sizeof detail, "%d Hz (must be %d Hz)", info.samplerate, SPEECH_SAMPLE_RATE);
    } else if (info.channels != 1) {
        why = "channels";
        snprintf(detail, sizeof detail, "%d (must be 1, mono)", info.channels);
    } else if (info.frames < 1) {
        why = "length";
        snprintf(detail, sizeof detail, "no samples (an empty clip)");
    } else if (info.frames > (sf_count_t)INT32_MAX) {
        why = "length";
        snprintf(detail, sizeof detail, "%lld samples (at most %d)", (long long)info.frames, (int)INT32_MAX);
    }
    if (why) {
        dataset_set_err(err, errlen, "%s: %s %s", path, why, detail);
        sf_close(f);
        return -1;
    }
    float *buf = malloc((size_t)info.frames * sizeof *buf);
    if (!buf) {
        dataset_set_err(err, errlen, "%s: out of memory for %lld samples", path, (long long)info.frames);
        sf_close(f);
        return -1;
    }
    sf_count_t got = sf_readf_float(f, buf, info.frames);
    if (got != info.frames) {
        dataset_set_err(err, errlen, "%s: truncated or unreadable: read %lld of the %lld samples its header declares (%s)",
                        path, (long long)got, (long long)info.frames, sf_strerror(f));
        free(buf);
        sf_close(f);
        return -1;
    }
    if (sf_close(f) != 0) {
        dataset_set_err(err, errlen, "%s: error closing the file", path);
        free(buf);
        return -1;
    }
    *samples = buf;
    *n = (long)info.frames;
    return 0;
}

int wav_write_mono16k(const char *path, const float *samples, long n, char *err, size_t errlen) {
    SF_INFO info;
    memset(&info, 0, sizeof info);
    info.samplerate = SPEECH_SAMPLE_RATE;
    info.channels = 1;
    info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
    SNDFILE *f = sf_open(path, SFM_WRITE, &info);
    if (!f) {
        dataset_set_err(err, errlen, "%s: cannot create: %s", path, sf_strerror(NULL));
        return -1;
    }
    short *pcm = malloc((size_t)(n > 0 ? n : 1) * sizeof *pcm);
    if (!pcm) {
        dataset_set_err(err, errlen, "%s: out of memory for %ld samples", path, n);
        sf_close(f);
        return -1;
    }
    for (long i = 0; i < n; i++) {
        float x = samples[i] > 1.0f ? 1.0f : samples[i] < -1.0f ? -1.0f : samples[i];
        pcm[i] = (short)lrintf(x * 32767.0f);
    }
    sf_count_t put = sf_writef_short(f, pcm, n);
    free(pcm);
    if (put != n) {
        dataset_set_err(err, errlen, "%s: wrote %lld of %ld samples: %s", path, (long long)put, n, sf_strerror(f));
        sf_close(f);
        return -1;
    }
    if (sf_close(f) != 0) {
        dataset_set_err(err, errlen, "%s: error closing the file (disk full?)", path);
        return -1;
    }
    return 0;
}
