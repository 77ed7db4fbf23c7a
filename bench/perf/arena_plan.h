// bench/perf/arena_plan.h — `posbench bench --arena-only`: the arena of one benchmark step predicted
// from the model's tensor tables (model_declare) without allocating the arenas or running a step,
// split into its parts, for the CPU backend's sizing rules or the CUDA backend's.
#pragma once
#include "../../models/model.h"
#include "../../objectives/objective.h"
#include <stddef.h>

// Which backend's sizing rules the plan follows. They differ in the saved attention state (ops
// attention_state_floats): the CPU keeps the probabilities B·H·T·M; CUDA keeps what
// core/attention_route.c's attention_route_state_floats says for the precision and the route
// setting (the function cuda_attention_state_floats calls); and in the workspace (below).
typedef enum { ARENA_RULES_CPU, ARENA_RULES_CUDA } arena_rules;

// Bytes per part. total = the sum; on the CPU backend it equals the peak that `posbench bench`
// measures (ops memory_peak) for the same config, since the CPU ops allocate no workspace through
// the meter (workspace 0). Under the CUDA rules, workspace is the materialised route's attention
// workspace (core/attention_gemm_layout.h attn_gemm_workspace_of, the backward's: the largest op
// workspace of that route) when the ViT blocks' attention takes that route (their saved state is
// its P16, not a row lse; the cuDNN route is counted as loaded: under --attention cudnn the calls
// cuDNN can express keep the row lse and need no route-A workspace; materialised-inplace is planned
// as materialised: its in-place calls need less, so the plan is their upper bound); the CUDA backend's other transient workspaces
// (column-sum partials, bf16 widening buffers, the cuBLASLt workspace and cached bf16 weight
// copies, cuDNN's workspace) are sized inside the .cu files and not predicted.
typedef struct arena_plan {
    size_t params, grads, adamw;  // parameters, their gradients, AdamW's m and v
    size_t acts;                  // the activation arena without the attention state
    size_t attn_state;            // the saved attention state (the tensors whose name ends in attn.state)
    size_t act_grads;             // the activation-gradient arena
    size_t inputs;                // the model's input arena (images, token indices, contexts)
    size_t objective;             // the objective's own buffers (labels, loss probabilities, ...)
    size_t workspace;             // op workspaces counted by the meter at the step's peak (above)
    size_t total;
} arena_plan;

// The plan of the training step that `posbench bench` times for a model of config mc (already
// configured by the objective) at batch B, under matmul precision `precision` (MATMUL_FP32 or
// MATMUL_BF16) and, for ARENA_RULES_CUDA, the CUDA attention route setting `route` (CUDA_ATTN_*).
// The objective's buffers are the only memory allocated: it is created on the declared model
// through the CPU backend and its bytes read from the CPU meter (labels and loss buffers: at most
// tens of MiB at the GPU configs), then freed.
arena_plan arena_plan_of(const objective_kind *kind, const objective_settings *os, const model_config *mc, int B,
                         arena_rules rules, int precision, int route);
