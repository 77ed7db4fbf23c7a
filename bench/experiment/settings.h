// bench/experiment/settings.h — the configuration as the lower layers read it: plain structs filled from
// a resolved config (objectives/objective.h's objective_settings), so objectives never see
// the key table or YAML. Shared by the trainer and the experiment checker.
#pragma once
#include "../config/config.h"
#include "../../objectives/objective.h"
#include "../../datasets/dataset.h"

// The model's configuration from c, for images of channels × image_size² and num_classes
// classes (the objective's configure_model adds its head and masked attention).
// features > 0: the data is a sequence of that many features per frame (speech), image_size frames.
model_config model_config_from_config(const config *c, int channels, int image_size, int num_classes, int features);

// What the dataset's loader is told (data.path, seq_len, mfcc, long_clips, max_bytes), from c.
dataset_options dataset_options_from_config(const config *c);

// Every key an objective reads, from c. Image sizes known only once the data is loaded
// (train_size, the evaluation sizes) are set from the config's lists as given; the trainer
// completes them.
void objective_settings_from_config(const config *c, objective_settings *s);
