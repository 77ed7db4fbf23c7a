// bench/perf/arena_plan.c — the arena of a benchmark step from the tensor tables alone
// (bench/perf/arena_plan.h): the model is declared (model_declare) through a sizing backend (the
// CPU backend's table with the chosen backend's attention_state_floats), never allocated; the
// objective's small buffers are created and measured through the CPU meter; under the CUDA rules
// the materialised route's workspace is added where the route serves the blocks' attention.
#include "arena_plan.h"
#include "../../core/attention_gemm_layout.h"
#include "../../core/attention_route.h"
#include "../../core/common.h"
#include "../../core/ops.h"
#include <string.h>

// The CUDA sizing rule in force for the plan (the op has no context argument).
static int plan_precision, plan_route;

// The CUDA backend's saved-state rule: the same function cuda_attention_state_floats calls, with
// the plan's precision and route setting instead of the process's, and cuDNN loaded (the GPU
// machines that --attention cudnn is planned for have it; where it does not load, the state is
// the AUTO setting's, which is that setting's plan).
static size_t cuda_rule_state_floats(int B, int H, int T, int M, int C, unsigned uses) {
    return attention_route_state_floats(B, H, T, M, C, uses, plan_precision, plan_route, 1);
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

arena_plan arena_plan_of(const objective_kind *kind, const objective_settings *os, const model_config *mc, int B,
                         arena_rules rules, int precision, int route) {
    ops_backend sizing = ops_cpu; // only its sizing op and, for the objective, its allocator are used
    if (rules == ARENA_RULES_CUDA) {
        plan_precision = precision, plan_route = route;
        sizing.attention_state_floats = cuda_rule_state_floats;
    }
    model m;
    model_declare(&m, mc, &sizing, B);
    arena_plan p = {0};
    p.params = p.grads = m.params.total * sizeof(float);
    p.adamw = 2 * p.params;
    size_t state = 0, layer_state = 0; // the saved attention state, one tensor per attention layer
    for (int i = 0; i < m.acts.count; i++)
        if (ends_with(m.acts.items[i].name, "attn.state")) state += m.acts.items[i].numel, layer_state = m.acts.items[i].numel;
    p.attn_state = state * sizeof(float);
    p.acts = m.acts.total * sizeof(float) - p.attn_state;
    p.act_grads = m.act_grads.total * sizeof(float);
    p.inputs = m.inputs.total * sizeof(float);
    if (rules == ARENA_RULES_CUDA && state > 0) { // the blocks' attention, as the CUDA backend routes it:
        // the materialised route where their state is its P16; every other route keeps the row lse (B, H, T)
        const int T = model_tokens_max(&m);
        if (layer_state > (size_t)B * mc->heads * T) p.workspace = attn_gemm_workspace_of(B, mc->heads, T, m.M_alloc, mc->dim).total;
    }
    // The objective's buffers: created on the declared model (it reads only the model's sizes),
    // measured as the CPU meter's rise over the bytes live before.
    ops_cpu.memory_peak(1);
    size_t live = ops_cpu.memory_peak(0);
    objective obj;
    objective_create(&obj, kind, os, &m, B);
    p.objective = ops_cpu.memory_peak(0) - live;
    objective_free(&obj);
    model_free(&m);
    p.total = p.params + p.grads + p.adamw + p.acts + p.attn_state + p.act_grads + p.inputs + p.objective + p.workspace;
    return p;
}
