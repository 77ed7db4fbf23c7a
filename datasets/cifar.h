// datasets/cifar.h — internal: the CIFAR-10 / CIFAR-100 binary-format loader behind
// dataset_load (idx.c dispatches data.name "cifar10" and "cifar100" here). See cifar.c.
#pragma once
#include "dataset.h"

// 1 when name is "cifar10" or "cifar100", else 0 (NULL included).
int cifar_is_name(const char *name);
// dataset_load for a CIFAR name (contract in dataset.h); the split is already checked:
// train 1 reads the training files, 0 the test file. *ds must be zeroed by the caller; on
// failure it stays zeroed and owns nothing, and err holds a one-line message.
int cifar_load(dataset *ds, const char *name, const char *path, int train, char *err, size_t errlen);
