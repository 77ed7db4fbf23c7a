// datasets/speech/wav.c — 16 kHz mono WAV reading and writing through libsndfile; the checks
// and one-line messages for files that are not such audio (contract in wav.h).
#include "wav.h"
#include "../file_read.h"
#include <sndfile.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t le32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

// The RIFF layout libsndfile forgives: the data chunk's declared size must lie within the
// file (a clip cut short, or a header declaring more than is there, is an error, not silence).
static int check_riff(const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        dataset_set_err(err, errlen, "%s: cannot read as audio: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int rc = -1;
    unsigned char head[12], chunk[8];
    long long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        dataset_set_err(err, errlen, "%s: cannot seek: %s", path, strerror(errno));
    } else if (fread(head, 1, 12, f) != 12 || memcmp(head, "RIFF", 4) || memcmp(head + 8, "WAVE", 4)) {
        dataset_set_err(err, errlen, "%s: cannot read as audio: not a RIFF WAVE file (a 16-bit PCM WAV, 16000 Hz, mono is expected)", path);
    } else {
        long long at = 12;
        for (;;) {
            if (fseek(f, (long)at, SEEK_SET) != 0 || fread(chunk, 1, 8, f) != 8) {
                dataset_set_err(err, errlen, "%s: cannot read as audio: no data chunk before the end of the file (%lld bytes): truncated?", path, size);
                break;
            }
            long long len = le32(chunk + 4);
            if (!memcmp(chunk, "data", 4)) {
                if (at + 8 + len > size)
                    dataset_set_err(err, errlen, "%s: the data chunk at byte offset %lld declares %lld bytes, but the file "
                                    "ends after %lld of them (truncated, or a wrong header)", path, at, len, size - at - 8);
                else if (len % 2 != 0)
                    dataset_set_err(err, errlen, "%s: the data chunk holds %lld bytes, not a whole number of 16-bit samples",
                                    path, len);
                else
                    rc = 0;
                break;
            }
            at += 8 + len + (len & 1); // chunks are padded to an even size
        }
    }
    fclose(f);
    return rc;
}

int wav_read_mono16k(const char *path, float **samples, long *n, char *err, size_t errlen) {
    *samples = NULL;
    *n = 0;
    if (check_riff(path, err, errlen) != 0) return -1;
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
    int major = info.format & SF_FORMAT_TYPEMASK; // WAVE_FORMAT_EXTENSIBLE holding 16-bit PCM is the same data
    if ((major != SF_FORMAT_WAV && major != SF_FORMAT_WAVEX) || (info.format & SF_FORMAT_SUBMASK) != SF_FORMAT_PCM_16) {
        int sub = info.format & SF_FORMAT_SUBMASK;
        why = "encoding";
        snprintf(detail, sizeof detail, "%s (must be 16-bit PCM WAV)",
                 sub == SF_FORMAT_PCM_U8 || sub == SF_FORMAT_PCM_S8 ? "8-bit PCM" : sub == SF_FORMAT_PCM_24 ? "24-bit PCM"
                 : sub == SF_FORMAT_PCM_32 ? "32-bit PCM" : sub == SF_FORMAT_FLOAT ? "32-bit float" : sub == SF_FORMAT_DOUBLE
                 ? "64-bit float" : sub == SF_FORMAT_ULAW || sub == SF_FORMAT_ALAW ? "u-law/A-law" : "another encoding");
    } else if (info.samplerate != SPEECH_SAMPLE_RATE) {
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
