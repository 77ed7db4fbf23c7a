// bench/crosscheck/timm_match.h — `posbench crosscheck --init timm`: does a run's model match
// what timm's VisionTransformer builds, so that timm's own init functions can start the PyTorch
// twin (bench/crosscheck/torch_timm_init.py)? And which Python holds timm (the anchors'
// virtual environment of `make deps-anchors`, scripts/anchors_venv.sh).
#pragma once
#include "../config/config.h"
#include <stddef.h>

// 1 when run config c is a model timm's VisionTransformer builds with the same parameters
// (model.arch=vit, objective.name=supervised, pe.kind abs or none, model.linear_init=timm,
// model.embed_init=timm:
// timm's patch projection keeps PyTorch's default reset); 0 with the first mismatch and what
// is valid in why ("model.arch=gmlp: timm's VisionTransformer is a ViT (valid: model.arch=vit)").
int crosscheck_timm_matches(const config *c, char *why, size_t len);

// The anchors' Python relative to the repository root (`make deps-anchors` creates it).
#define ANCHORS_PYTHON "build/venv-anchors/bin/python"
