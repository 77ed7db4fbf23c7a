// datasets/speech/split_hash.h — the Speech Commands reference recipe's which_set(): a clip's
// split from the SHA-1 of its speaker id, so every clip of one speaker lands in one split and
// adding clips never moves old ones (tensorflow/examples/speech_commands/input_data.py).
#pragma once
#include <stddef.h>
#include <stdint.h>

typedef enum { SPEECH_TRAIN = 0, SPEECH_VALIDATION = 1, SPEECH_TEST = 2 } speech_split;

// SHA-1 (FIPS 180-4) of len bytes: the 20-byte digest into out.
void sha1_digest(const void *data, size_t len, uint8_t out[20]);

// The hash name of a clip file: its base name (after the last '/') up to "_nohash_" (the whole
// base name when it has no "_nohash_"). Writes at most outlen - 1 bytes plus a terminator.
void speech_hash_name(const char *file, char *out, size_t outlen);

// which_set(filename, validation_percentage, testing_percentage) of the reference recipe:
// p = (int(sha1(hash_name).hexdigest(), 16) % (2^27)) * (100 / (2^27 - 1));
// p < validation_percentage: validation; p < validation + testing: test; else train.
// The recipe's defaults are 10 and 10.
speech_split speech_which_set(const char *file, double validation_percentage, double testing_percentage);
