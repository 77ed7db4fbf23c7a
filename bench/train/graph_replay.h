// bench/train/graph_replay.h — which training configurations a captured CUDA graph can replay
// (train.graph=on, posbench bench --graph on): a plain decision over what the step does on the
// host, unit-tested on the CPU (tests/test_graph_replay.c). A replay re-runs the captured device
// work only: every shape must be static and every per-step value must be read from device
// memory the host updates before the replay (the step's inputs uploaded from pinned staging, the
// optimizer's STEP_* values, the random ops' epoch and step: ops set_rng_clock, so dropout and
// drop path replay), never drawn or decided by host code inside the step (what an objective
// draws on the host, MP3's contexts, MAE's kept patches and targets, is written into pinned host
// memory before each step by its objective_kind.train_stage; its size is fixed by objective.eta,
// so both replay at their eta; GVP's orders, group ids, predicted rows and targets and MLM's
// masked tokens and targets the same way: MLM's count is fixed by the sequence length, GVP's by
// fixed segmentation only; SimCLR's and DINO's views are staged the same way by their
// train_stage_views, DINO's per-step values and local crops too).
#pragma once
#include "../../objectives/objective.h"

typedef struct {
    int host_loss;          // the objective reads its loss on the host (no objective_kind.train_forward_to;
                            // what it draws on the host per step is staged before each step: train_stage)
    int own_views;          // the objective draws its own views (objective_kind.train_views) and cannot
                            // stage them before the step (no train_stage_views)
    int accumulate;         // train.accumulate
    int ranks;              // processes of the run
    int resolutions;        // sizes a step may draw (data.resolutions, UniViT): more than 1 changes shapes per step
    int reference_tokens;   // model.ref_tokens (drawn on the host in every forward)
    int encoding_draws;     // the position encoding draws on the host in every forward (CAPE)
    int loss_terms;         // the objective's loss has a number of terms drawn per step (objective_kind.train_loss_terms
                            // where train_terms_vary says so for the run's settings: GVP's random and mixed segmentations)
} graph_replay_inputs;

// NULL when the step of `in` replays from one capture; else why not, in words naming the key
// (a static string): the step then runs eagerly, still without host reads unless host_loss.
// Counts of 0 (accumulate, ranks, resolutions) read as 1.
const char *graph_replay_refusal(const graph_replay_inputs *in);

// NULL when the step can run without host reads at all (the trainer's device-resident path:
// no host_loss, one process, train.accumulate=1, no own views); else why not.
const char *graph_device_step_refusal(const graph_replay_inputs *in);

// The inputs of a training step of objective k with settings s on a model configured by mc (after
// the objective's configure_model: its reference tokens; the position encoding posenc_for_model
// runs), with train.accumulate, the run's processes and its data.resolutions count.
graph_replay_inputs graph_replay_inputs_of(const objective_kind *k, const objective_settings *s, const model_config *mc,
                                           int accumulate, int ranks, int resolutions);
