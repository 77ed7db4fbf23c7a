// datasets/text/text.h — data.name=text: any UTF-8 file as a byte-level corpus for masked
// language modelling (gMLP §4; docs/methods.md "Masked language modelling").
// Tokens are the file's bytes (0..255; the model's embedding adds [MASK] = TEXT_MASK_TOKEN).
// The file is cut into consecutive, non-overlapping sequences of L = data.seq_len bytes from
// its first byte (a tail shorter than L is dropped); sequence i belongs to the validation
// split ("test") when i % TEXT_VALIDATION_EVERY == TEXT_VALIDATION_EVERY - 1, to "train"
// otherwise (every tenth sequence: the split spreads over the whole text, and does not depend on
// the seed). The loaded dataset is the usual struct with channels 1, height L, width 1,
// vocab TEXT_VOCAB, pixels (n, L) the bytes, labels all 0 and num_classes TEXT_BYTES (the token
// head's outputs). A batch (dataset_make_batch) is (B, L) int32 token ids written into the float
// buffer's storage; there is no augmentation and no resizing.
// Refused (one line naming the file, exit 2 through the caller): a missing or unreadable file,
// an empty one, one that is not UTF-8 (the byte offset of the first invalid sequence: strict
// UTF-8, no overlong forms, no surrogates, nothing above U+10FFFF), and one too short for a
// sequence in each split.
#pragma once
#include "../dataset.h"
#include <stddef.h>

#define TEXT_BYTES 256            // byte tokens 0..255
#define TEXT_MASK_TOKEN 256       // [MASK]
#define TEXT_VOCAB 257            // rows of the token embedding
#define TEXT_VALIDATION_EVERY 10  // sequence i is validation when i % 10 == 9
#define TEXT_DEFAULT_PATH "data/kjv.txt" // make data/kjv.txt: the KJV Bible from Debian's bible-kjv-text

// split: "train" or "test" (the validation sequences). opt->path: the file (NULL or "" =
// TEXT_DEFAULT_PATH); opt->seq_len: L; opt->max_bytes: the largest file read.
// Returns 0, or -1 with a one-line message in err; on failure *ds is zeroed and owns nothing.
int text_load(dataset *ds, const dataset_options *opt, const char *split, char *err, size_t errlen);
// Byte offset of the first byte that does not belong to a valid UTF-8 sequence, or -1 when
// all n bytes are valid UTF-8 (a sequence cut by the end of the buffer is invalid).
long long text_utf8_invalid_offset(const unsigned char *bytes, size_t n);
// (B, L) int32 token ids of rows `indices` into `tokens` (the batch's float storage); labels 0.
void text_make_batch(const dataset *ds, const int *indices, int B, int32_t *tokens, int32_t *labels);
