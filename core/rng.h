// core/rng.h — Philox4x32-10 counter-based random numbers.
// Every random draw in posbench is addressed by (seed, purpose, epoch, step, index):
// key = (seed, purpose), counter = (epoch, step, index, block). A stream made for one
// image or one tensor gives the same numbers whatever thread or device asks for them,
// so data order, augmentation, masks and initialisation do not depend on thread count,
// and a resumed run continues exactly (the "position" is just epoch and step).
#pragma once
#include <stdint.h>

typedef enum {
    RNG_INIT = 1,      // parameter initialisation (index = tensor number)
    RNG_SHUFFLE = 2,   // epoch permutation of the training set
    RNG_AUGMENT = 3,   // random crop / flip (index = position in batch)
    RNG_DROPOUT = 4,   // dropout masks (index = call site)
    RNG_DROPPATH = 5,  // drop path keep decisions (index = call site)
    RNG_SUBSET = 6,    // labelled-subset selection (index = class)
    RNG_MASK = 7,      // objective masks, e.g. MP3 context sets (index = image)
    RNG_POSENC = 8,    // CAPE position augmentation (index = image)
    RNG_RESOLUTION = 9,// UniViT: the training resolution of each batch (index = 0)
    RNG_REFERENCE = 10,// MP3 reference tokens that keep their position encoding (index = image)
    RNG_SPEECH_DATA = 11,// Speech Commands: the fixed _unknown_ choice and _silence_ cuts (epoch = split)
    RNG_SPEECH_SYNTH = 12,// posbench data speech-synth: speakers (epoch 0), clips (epoch 1), noise files (epoch 2)
    RNG_GVP = 13,      // GVP: each image's order z and group segmentation (index = image)
    RNG_MLM = 14,      // MLM: each sequence's chosen positions and their replacements (index = sequence)
    RNG_MAE = 15,      // MAE: each image's patch noise, whose argsort keeps patches (index = image)
    RNG_VIEWS = 16,    // SimCLR/DINO views (datasets/views.h): index = image, block = view << 24 | part << 20
    RNG_TEST = 100,    // tests
} rng_purpose;

// The Philox4x32-10 block function: 4 x 32 random bits from a 128-bit counter and 64-bit key.
void philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

typedef struct {
    uint32_t key[2];
    uint32_t counter[4]; // counter[3] is the block number inside this stream
    uint32_t buffer[4];
    int used;            // values of buffer already handed out (4 = empty)
} rng_stream;

rng_stream rng_stream_make(uint32_t seed, uint32_t purpose, uint32_t epoch, uint32_t step,
                           uint32_t index);
uint32_t rng_u32(rng_stream *s);
float rng_uniform(rng_stream *s);               // [0, 1), 24 random bits
uint32_t rng_below(rng_stream *s, uint32_t n);  // uniform integer in [0, n), unbiased
float rng_normal(rng_stream *s);                // standard normal (Box-Muller)
// Normal(0, std) truncated to [-cut, cut] (cut in units of std) by resampling. timm's
// trunc_normal_(t, std=.02) keeps its default bounds a = -2, b = 2 in absolute units: cut 100
// (in effect untruncated); posbench before model.trunc_normal cut at 2 std (models/api/model_config.h).
float rng_trunc_normal(rng_stream *s, float std, float cut);
// Uniform random permutation of 0..n-1 (Fisher-Yates).
void rng_permutation(rng_stream *s, int n, int *out);
// Uniform random k-subset of 0..n-1 in ascending order: scratch (n) gets a permutation and
// its first k entries, sorted, are the subset (scratch[0..k)). 0 <= k <= n.
void rng_sorted_subset(rng_stream *s, int n, int k, int *scratch);

// Stateless single value: the `which`-th uniform of stream (seed, purpose, epoch, step, index).
// Used by element-parallel ops (dropout) so that any thread computes any element.
float rng_uniform_at(uint32_t seed, uint32_t purpose, uint32_t epoch, uint32_t step,
                     uint32_t index, uint64_t which);
// Elements 4·block .. 4·block+3 of that stream in one Philox call: u[lane] equals
// rng_uniform_at(..., 4·block + lane) (a quarter of the work when every element is drawn).
void rng_uniform4_at(uint32_t seed, uint32_t purpose, uint32_t epoch, uint32_t step, uint32_t index,
                     uint64_t block, float u[4]);

// Where a random op draws from: element e of tensor draw `index` uses
// rng_uniform_at(seed, purpose, epoch, step, index, e).
typedef struct {
    uint32_t seed, purpose, epoch, step, index;
} rng_addr;
// The top 8 bits of an address's epoch name a slot of draws within one step (DINO's student
// groups: (group) << 24; evaluation draws: 0xE0000000). The RNG clock (ops set_rng_clock)
// replaces an address's epoch by clock epoch + its slot, and its step by the clock's, so a
// slot drawn inside a replayed step draws as it does at the address passed.
#define RNG_EPOCH_SLOT_MASK 0xFF000000u
