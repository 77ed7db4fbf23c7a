// datasets/registry.c — the capability table of the datasets (registry.h).
#include "registry.h"
#include <string.h>

static const dataset_caps CAPS[] = {
    {"fashion-mnist", 1, 0, 0}, {"mnist", 1, 0, 0},           {"idx", 1, 0, 0},  {"cifar10", 1, 0, 0},
    {"cifar100", 1, 0, 0},      {"speech-commands", 1, 0, 1}, {"text", 0, 1, 0},
};

const dataset_caps *dataset_caps_of(const char *name) {
    for (size_t i = 0; name && i < sizeof CAPS / sizeof CAPS[0]; i++)
        if (strcmp(CAPS[i].name, name) == 0) return &CAPS[i];
    return NULL;
}
