// bench/train/speech_eval.c — CAPE's duration and rate evaluation of a keyword model
// (eval.speech_durations, eval.speech_rates; datasets/speech/variants.h): at the end of a
// supervised speech run the test split is rebuilt as longer clips of background noise with the
// keyword at a random offset, and as time-stretched clips, and the objective's own evaluation
// runs on each at its frame count (the model follows the length as it follows an image size).
// Records /speech_duration/{seconds, frames, top1, top5, loss}, /speech_rate/{rate, percent,
// frames, top1, top5, loss} and /final top1_dur<D>s, top1_rate<P> (top-1 at the variant).
#include "train_internal.h"
#include "../../core/common.h"
#include "../../datasets/speech/variants.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int speech_eval_largest_frames(const config *c) {
    int v[CFG_LIST_MAX], n = cfg_int_list(c, "eval.speech_durations", v, CFG_LIST_MAX), largest = 0;
    for (int i = 0; i < n; i++) largest = speech_duration_frames(v[i]) > largest ? speech_duration_frames(v[i]) : largest;
    n = cfg_int_list(c, "eval.speech_rates", v, CFG_LIST_MAX);
    for (int i = 0; i < n; i++) largest = speech_rate_frames(v[i]) > largest ? speech_rate_frames(v[i]) : largest;
    return largest;
}

void speech_eval_check(const run *r) {
    int v[CFG_LIST_MAX];
    int any = cfg_int_list(r->cfg, "eval.speech_durations", v, CFG_LIST_MAX) + cfg_int_list(r->cfg, "eval.speech_rates", v, CFG_LIST_MAX);
    if (!any) return;
    if (!r->test.audio)
        die_input("eval.speech_durations and eval.speech_rates evaluate speech clips; data.name=%s is not speech (valid: "
                  "data.name=speech-commands, or leave both [])", cfg_str(r->cfg, "data.name"));
    if (strcmp(r->settings.name, "supervised") != 0)
        die_input("eval.speech_durations and eval.speech_rates score a keyword classifier; objective.name=%s does not "
                  "have one (valid: objective.name=supervised, or leave both [])", r->settings.name);
}

// The objective's evaluation on variant v of the test split, at its frame count.
static eval_scores evaluate_variant(run *r, const speech_variant *v) {
    r->variant = v;
    r->env.test_n = v->n;
    eval_scores e = r->obj.kind->evaluate(&r->obj, &r->env);
    r->variant = NULL;
    r->env.test_n = r->test.n;
    model_set_resolution(&r->model, r->train_size);
    return e;
}

// kind 0: durations (seconds), 1: rates (percent).
static void record_kind(run *r, int kind) {
    int values[CFG_LIST_MAX];
    int n = cfg_int_list(r->cfg, kind ? "eval.speech_rates" : "eval.speech_durations", values, CFG_LIST_MAX);
    if (n == 0) return;
    float value[CFG_LIST_MAX], x[CFG_LIST_MAX], frames[CFG_LIST_MAX], top1[CFG_LIST_MAX], top5[CFG_LIST_MAX], loss[CFG_LIST_MAX];
    for (int i = 0; i < n; i++) {
        speech_variant v;
        char err[1600], name[64];
        int rc = kind ? speech_variant_rate(&r->test, values[i], &v, err, sizeof err)
                      : speech_variant_duration(&r->test, values[i], (float)cfg_float(r->cfg, "data.background_volume"), &v,
                                                err, sizeof err);
        if (rc != 0) die_fail("%s", err);
        eval_scores e = evaluate_variant(r, &v);
        value[i] = (float)values[i], x[i] = kind ? values[i] / 100.0f : (float)values[i], frames[i] = (float)v.frames;
        top1[i] = (float)e.metric[0], top5[i] = (float)e.metric[1], loss[i] = (float)e.loss;
        if (kind) snprintf(name, sizeof name, "top1_rate%d", values[i]);
        else snprintf(name, sizeof name, "top1_dur%ds", values[i]);
        results_attr_double(r->res, "/final", name, e.metric[0]);
        printf("test %s (%d frames): top1 %.4f top5 %.4f\n", name + 5, v.frames, e.metric[0], e.metric[1]);
        speech_variant_free(&v);
    }
    const char *group = kind ? "/speech_rate" : "/speech_duration";
    char path[64];
    int dims[1] = {n};
#define PUT(field, arr)                                                        \
    snprintf(path, sizeof path, "%s/%s", group, field);                        \
    results_dataset_f32(r->res, path, 1, dims, arr);
    if (kind) {
        PUT("rate", x);
        PUT("percent", value);
    } else {
        PUT("seconds", value);
    }
    PUT("frames", frames);
    PUT("top1", top1);
    PUT("top5", top5);
    PUT("loss", loss);
#undef PUT
    results_attr_int(r->res, group, "images", r->test.n);
}

void record_speech_variants(run *r) {
    record_kind(r, 0);
    record_kind(r, 1);
}
