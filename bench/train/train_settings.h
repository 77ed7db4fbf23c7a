// bench/train/train_settings.h — the trainer's settings: every train.*, eval.* and data.* key the
// training loop and its helpers read, typed, resolved once from a config and validated once
// (the cross-key rules that need no data). The trainer reads these fields, never a key by name:
// train_settings.c is the one file of bench/train that looks keys up (tests/e2e_train_settings.sh).
#pragma once
#include "../config/config.h"
#include "../../core/optimizer.h"
#include "../../datasets/dataset.h"
#include <stddef.h>
#include <stdint.h>

typedef struct {
    // The source, for what other modules resolve from it themselves (model_config and
    // objective_settings: bench/experiment/settings.h) and for the /config record.
    const config *cfg;
    const char *objective_name;     // objective.name

    // data.*
    const char *data_name;          // data.name
    dataset_options data_options;   // data.path, seq_len, mfcc, long_clips, max_bytes (the loader's)
    int test_on_train;              // data.test_split=train: evaluations read the training images
    int data_limit;                 // data.limit (0: all)
    int test_limit;                 // data.test_limit (0: all)
    double labeled_fraction;        // data.labeled_fraction
    uint32_t subset_seed;           // data.subset_seed
    int resolution;                 // data.resolution (0: the dataset's own)
    int resolutions[CFG_LIST_MAX], n_resolutions; // data.resolutions (UniViT)
    int crop_pad, hflip;            // data.crop_pad, data.hflip
    int time_shift_ms;              // data.time_shift_ms (speech)
    float background_frequency, background_volume; // data.background_* (speech)
    int mfcc_frontend;              // data.mfcc (datasets/speech/mfcc.h)

    // train.*
    long steps, epochs;             // train.steps (> 0: a step budget), train.epochs
    int batch;                      // train.batch
    int accumulate;                 // train.accumulate (micro-batches per step)
    long eval_every;                // train.eval_every (0: once an epoch)
    long checkpoint_every;          // train.checkpoint_every (0: none)
    uint32_t seed;                  // train.seed
    int bf16;                       // train.precision=bf16
    int attention_route;            // train.attention (core/attention_route.h)
    const char *attention;          // its name, for messages
    int graph;                      // train.graph=on
    int early_stop;                 // train.early_stop
    int init_partial;               // train.init_partial
    long warmup_steps;              // train.warmup_steps (0: train.warmup_epochs decides)
    double warmup_epochs;           // train.warmup_epochs
    // train.lr, min_lr, weight_decay, beta1, beta2, eps, clip, schedule, warmup_lr, halve_every;
    // warmup_steps and total_steps are the run's (train_settings_optim).
    optim_config optim;

    // eval.*
    int eval_batch;                 // eval.batch
    int knn, linear_probe;          // eval.knn, eval.linear_probe
    int knn_k;                      // eval.knn_k
    int knn_train_limit, knn_test_limit; // eval.knn_*_limit
    float knn_temperature;          // eval.knn_temperature
    int probe_all_layers;           // eval.probe_layers=all
    int probe_train_limit, probe_test_limit, probe_val_images; // eval.probe_*
    int view_images;                // eval.view_images
    int speech_durations[CFG_LIST_MAX], n_speech_durations; // eval.speech_durations (seconds)
    int speech_rates[CFG_LIST_MAX], n_speech_rates;         // eval.speech_rates (percent)
    int speech_rate_modes;          // eval.speech_rate_mode: bit 0 resample, bit 1 hop
} train_settings;

// Fills out from c and checks the rules between keys that need no data (data.mfcc, the
// attention route and the activations against train.precision, train.accumulate against
// train.batch). Returns 0, or -1 with a message in err naming the keys, their values and what is
// valid, after "file:line:col: " (1-based) of the key it blames when c came from a file
// (config.source: an experiment's run); the caller exits 2.
int train_settings_resolve(const config *c, train_settings *out, char *err, size_t errlen);
// As train_settings_resolve; exits 2 (die_input) with its message on a refusal.
void train_settings_resolve_or_die(const config *c, train_settings *out);
// The optimizer's settings for a run of total_steps updates and steps_per_epoch steps an epoch.
optim_config train_settings_optim(const train_settings *s, long total_steps, int steps_per_epoch);
