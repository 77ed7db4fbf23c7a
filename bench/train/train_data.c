// bench/train/train_data.c — a run's data (train_data.h): the splits, the epoch order and the
// batches. Everything random comes from Philox addresses (seed, epoch, step), so a resumed run
// and another device see the same batches.
#include "train_data.h"
#include "../../core/common.h"
#include "../../core/rng.h"
#include "../../datasets/data_files.h"
#include "../../datasets/registry.h"
#include "../../datasets/speech/variants.h"
#include <string.h>

void train_data_load(run *r) {
    const train_settings *ts = &r->trainer;
    char err[1024];
    const char *name = ts->data_name;
    const dataset_options *opt = &ts->data_options;
    // data.test_split=train evaluates on the training images themselves (the overfit check):
    // the train split loaded again and cut by data.limit like the training set.
    int on_train = ts->test_on_train;
    const char *eval_split = on_train ? "train" : "test";
    // text: byte sequences of data.seq_len, "test" its validation split (datasets/registry.h)
    // Each split is told how many of its first examples are used (dataset_options.limit): the
    // loader may stop decoding after them; dataset_limit below cuts the same rows either way.
    dataset_options train_opt = *opt, test_opt = *opt;
    train_opt.limit = ts->data_limit;
    test_opt.limit = ts->test_limit;
    if (on_train && ts->data_limit > 0 && (test_opt.limit <= 0 || ts->data_limit < test_opt.limit))
        test_opt.limit = ts->data_limit;
    if (dataset_load(&r->train, name, &train_opt, "train", err, sizeof err) != 0) die_input("%s", err);
    if (dataset_load(&r->test, name, &test_opt, eval_split, err, sizeof err) != 0) die_input("%s", err);
    // The content fingerprints of every file read (datasets/data_files.h): the run file and
    // checkpoint keep them; a resume or an "already done" on other data is refused.
    data_prints_merge(&r->data_prints, r->train.prints);
    data_prints_merge(&r->data_prints, r->test.prints);
    dataset_limit(&r->train, ts->data_limit);
    if (on_train) dataset_limit(&r->test, ts->data_limit);
    dataset_limit(&r->test, ts->test_limit);
    dataset_labeled_subset(&r->train, ts->labeled_fraction, ts->subset_seed);
    if (r->train.height != r->train.width && !r->train.audio && !r->train.vocab) // speech, text: sequences
        die_input("%s: images are %dx%d; the ViT needs square images", r->train.source, r->train.height, r->train.width);
    if (r->test.num_classes > r->train.num_classes) // the model has train.num_classes logits
        die_input("%s: test labels go up to %d, but the training set has %d classes (labels 0..%d)", r->test.source,
                  r->test.num_classes - 1, r->train.num_classes, r->train.num_classes - 1);
    if (r->test.height != r->train.height || r->test.width != r->train.width || r->test.channels != r->train.channels)
        die_input("%s: test images (%dx%d) differ from training images (%dx%d)", r->test.source, r->test.height,
                  r->test.width, r->train.height, r->train.width);
}

void train_epoch_order(run *r, int epoch) {
    rng_stream s = rng_stream_make(r->seed, RNG_SHUFFLE, (uint32_t)epoch, 0, 0);
    rng_permutation(&s, r->train.n, r->order);
}

void load_batch(run *r, const dataset *ds, const int *idx, int B, const augment_config *aug, uint32_t epoch,
                uint32_t step, int size) {
    model_set_resolution(&r->model, size);
    dataset_make_batch_sized(ds, idx, B, aug, r->seed, epoch, step, size, model_images(&r->model), r->labels, r->scratch);
}

void train_data_load_test(objective_env *env, int first, int B, int size) {
    run *r = env->trainer;
    for (int b = 0; b < B; b++) r->batch_index[b] = first + b;
    if (r->variant) { // a speech test-set variant: its own frame count
        model_set_resolution(&r->model, r->variant->frames);
        speech_variant_batch(r->variant, r->batch_index, B, model_images(&r->model), r->labels);
        return;
    }
    load_batch(r, r->eval_set, r->batch_index, B, NULL, 0, 0, size);
}
