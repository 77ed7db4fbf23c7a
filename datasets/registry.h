// datasets/registry.h — what each data.name is, as the rest of the code asks it: whether its
// examples carry class labels (a probe or objective scored against labels needs them), whether
// they are byte tokens, whether they are audio. One line per dataset in registry.c; nothing
// else compares a dataset name to decide these.
#pragma once

typedef struct {
    const char *name;   // data.name
    int labels;         // 1: every example has a class label (0: text; labels would all be 0)
    int tokens;         // 1: byte-token sequences (data.name=text)
    int audio;          // 1: MFCC frames of clips (speech-commands)
} dataset_caps;

// The entry of data.name `name`; NULL when no dataset has that name.
const dataset_caps *dataset_caps_of(const char *name);
