// datasets/speech/synth.h — a synthesized Speech Commands v1 set (`posbench data speech-synth`):
// the 30 v1 words spoken by libespeak-ng (its C API) for many "speakers", each a fixed
// (English voice, voice variant, rate, pitch) combination, in exactly the real layout
// (<word>/<speaker>_nohash_0.wav, _background_noise_/*.wav, validation_list.txt,
// testing_list.txt), so the speech-commands loader reads it as it reads the real set.
// Deterministic for a seed: the same seed and scale give byte-identical files.
#pragma once
#include <stddef.h>
#include <stdint.h>

#define SYNTH_WORDS 30
extern const char *const synth_words[SYNTH_WORDS];

typedef struct {
    const char *name;    // smoke | small | paper
    int speakers;        // each says every word once: speakers x 30 clips
    int noise_seconds;   // length of each background-noise file
} synth_scale;

// The scale called name, or NULL.
const synth_scale *synth_scale_find(const char *name);

// Writes the set to out (which must not exist): into out.partial first, renamed to out when
// complete (a leftover out.partial from an interrupted run is removed first). Speakers: a
// tenth validation, a tenth test (chosen so that the recipe's speaker hash puts them there;
// the list files say the same), the rest train. Returns 0, or -1 with err set (bad input:
// out exists, cannot be written; or libespeak-ng / libsoxr failed). verbose: progress on stderr.
int synth_write(const char *out, uint32_t seed, const synth_scale *scale, int verbose, char *err, size_t errlen);
