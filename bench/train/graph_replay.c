// bench/train/graph_replay.c — the replay decision of graph_replay.h: the rules in the order a
// reader checks them, each naming the setting that stops the replay.
#include "graph_replay.h"
#include <stddef.h>

const char *graph_device_step_refusal(const graph_replay_inputs *in) {
    if (in->own_views) return "the objective draws its own views and reads its loss on the host";
    if (in->host_loss) return "the objective reads its loss on the host (it has no train_forward_to)";
    if (in->ranks > 1) return "a run across processes sums its gradients through the host";
    if (in->accumulate > 1) return "train.accumulate > 1: micro-batches are cut and weighted on the host";
    return NULL;
}

const char *graph_replay_refusal(const graph_replay_inputs *in) {
    const char *why = graph_device_step_refusal(in);
    if (why) return why;
    if (in->loss_terms)
        return "the objective draws the number of its loss terms per step, and with it the shapes of its loss (GVP: "
               "objective.segmentation=random or mixed; fixed replays)";
    if (in->resolutions > 1) return "data.resolutions: the image size (and every shape) is drawn per step (UniViT)";
    if (in->reference_tokens > 0) return "model.ref_tokens > 0: the reference tokens are drawn on the host in every forward";
    if (in->encoding_draws) return "the position encoding draws its positions on the host in every forward (CAPE)";
    return NULL;
}

graph_replay_inputs graph_replay_inputs_of(const objective_kind *k, const objective_settings *s, const model_config *mc,
                                           int accumulate, int ranks, int resolutions) {
    const posenc_kind *pe = posenc_for_model(mc);
    return (graph_replay_inputs){.host_loss = k->train_forward_to == NULL, .own_views = k->train_views && !k->train_stage_views,
                                 .accumulate = accumulate, .ranks = ranks, .resolutions = resolutions,
                                 .reference_tokens = mc->request.ref_tokens, .encoding_draws = pe && pe->prepare_inputs,
                                 .loss_terms = k->train_loss_terms && (!k->train_terms_vary || k->train_terms_vary(s))};
}
