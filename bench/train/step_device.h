// bench/train/step_device.h — the training step without host reads (train.graph=on, posbench
// bench --graph on): forward, loss, backward, clipping and AdamW issued with every per-step value
// in backend memory, so nothing comes back to the host inside a step. The step's loss
// (objective_kind.train_forward_to: ops->sum_to) and gradient norm (optim_step_device) are
// copied into a small backend array, one (loss, norm) pair per step; the host reads the pairs
// of every step since the last read in one download (step_device_read) when it needs them (a
// logging, evaluation or checkpoint step, or the array is full). A non-finite loss sets the
// backend's skip flag (STEP_SKIP), so that step changes no parameter; it is seen at the next read
// and recorded exactly as the step that reads its loss at once records it.
// Where the configuration replays (graph_replay.h) and the backend builds graphs, the step after
// the warm-up is captured once (ops graph_begin / graph_end) and later steps replay it
// (graph_replay): the step's inputs are uploaded from pinned staging by memcpy nodes (what the
// objective draws on the host, MP3's contexts, MAE's kept patches and targets, SimCLR's views, is
// staged before every step by its train_stage or train_stage_views, replayed or not), the learning rate and bias corrections from a pinned host slot before each
// replay (never frozen into the graph), and so is the epoch and step at which dropout and drop
// path draw (ops set_rng_clock).
// The CPU backends refuse the capture and run each step eagerly, with the same values.
#pragma once
#include <stdint.h>
#include "../../core/ops.h"
#include "../../core/optimizer.h"
#include "../../models/model.h"
#include "../../objectives/objective.h"

enum { STEP_DEVICE_CAP = 64, STEP_DEVICE_WARMUP = 2 };

typedef struct {
    const ops_backend *ops;
    double *values;       // backend: the running step's (loss, norm), then STEP_DEVICE_CAP steps' pairs
    float *scalars;       // backend: STEP_SCALARS (core/ops.h)
    uint32_t *clock;      // backend: the step's (epoch, step) random address (ops set_rng_clock)
    void *host_slots;     // host, pinned, whole pages of its own: the two arrays below
    float *host_scalars;  // STEP_DEVICE_CAP slots of STEP_HOST_SCALARS (one per step until a read)
    uint32_t *host_clock; // STEP_DEVICE_CAP slots of 2
    double *host_values;  // host: STEP_DEVICE_CAP pairs (the last read)
    int pending;          // steps issued since the last read
    int wanted;           // the configuration replays (step_device_create's graph)
    int graph;            // 1: capture and replay when the backend can (cleared when it cannot)
    int replaying;        // 1: a graph was built; every later step replays it
    long issued;          // steps issued by this process
    char why[256];        // why the step does not replay ("" while it may)
} step_device;

// What one step trains: the objective (with train_forward_to) and its model, the AdamW state
// (backend, params.total each), the optimizer settings and the batch size; views: the step's raw
// images for an objective that draws its own views (objective_kind.train_stage_views stages
// them before the step, in place of a loaded batch), else NULL.
typedef struct {
    objective *obj;
    model *m;
    float *adam_m, *adam_v;
    const optim_config *oc;
    int B;
    const objective_batch *views;
} step_target;

// graph: capture and replay (the caller's graph_replay_refusal said yes); else refused_why (may be
// NULL) is why not, kept in why. Allocates the backend arrays, pins the host slots and sets the
// backend's random-address clock (step_device_free clears it).
void step_device_create(step_device *sd, const ops_backend *ops, int graph, const char *refused_why);
void step_device_free(step_device *sd);
// Issues the step of 0-based global step `step` on the batch already in the model's staging input
// (labels: host, pinned by the caller for a replay); returns its learning rate. The caller reads
// first when step_device_full. marks (NULL: none) are timing-mark slots recorded after the
// forward, the gradient clearing, the backward and AdamW on eager steps (posbench bench
// --breakdown); a replayed step records none of them.
float step_device_run(step_device *sd, const step_target *t, const int32_t *labels, rng_addr rng, long step,
                      const int marks[4]);
int step_device_full(const step_device *sd);
// Reads the pending steps' values in one download: loss[i], norm[i] for the i-th step since the
// last read (caller arrays of STEP_DEVICE_CAP); returns how many.
int step_device_read(step_device *sd, double *loss, double *norm);
