// datasets/cifar.h — internal: the CIFAR-10 / CIFAR-100 binary-format loader, the registry's
// loader of data.name "cifar10" and "cifar100" (datasets/registry.c). See cifar.c.
#pragma once
#include "dataset.h"

// dataset_load for a CIFAR name (contract in dataset.h): split "train" reads the training files,
// "test" the test file (anything else: an error naming the valid splits); opt->path, opt->max_bytes.
// *ds must be zeroed by the caller; on failure it stays zeroed and owns nothing, and err holds a
// one-line message.
int cifar_load(dataset *ds, const char *name, const dataset_options *opt, const char *split, char *err, size_t errlen);
