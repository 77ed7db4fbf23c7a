// bench/train/speech_eval.c — CAPE's duration and rate evaluation of a keyword model
// (eval.speech_durations, eval.speech_rates, eval.speech_rate_mode; datasets/speech/variants.h):
// at the end of a supervised speech run the test split is rebuilt as longer clips of background
// noise with the keyword at a random offset, as time-stretched clips (resample: the audio played
// faster or slower) and as clips framed with another STFT hop (hop: CAPE §5.2.2, positions tied
// to the original timestamps), and the objective's own evaluation runs on each at its frame
// count (the model follows the length as it follows an image size; for the hop variant the
// frame stride in seconds, model_config.frame_seconds, is the hop's for the evaluation).
// Records /speech_duration/{seconds, frames, top1, top5, loss}, /speech_rate/{rate, percent,
// frames, top1, top5, loss} (resample), /speech_rate_hop/{rate, percent, frames, hop_samples,
// frame_seconds (the stride the model's positions used), top1, top5, loss} (hop) and /final top1_dur<D>s, top1_rate<P>, top1_rate<P>_hop.
#include "train_internal.h"
#include "../../core/common.h"
#include "../../datasets/speech/variants.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int speech_eval_largest_frames(const train_settings *s) {
    int f = s->mfcc_frontend, modes = s->speech_rate_modes, largest = 0; // f: checked by train_settings_resolve
    const int *v = s->speech_durations;
    for (int i = 0; i < s->n_speech_durations; i++)
        largest = speech_duration_frames(f, v[i]) > largest ? speech_duration_frames(f, v[i]) : largest;
    v = s->speech_rates;
    for (int i = 0; i < s->n_speech_rates; i++) {
        if ((modes & 1) && speech_rate_frames(f, v[i]) > largest) largest = speech_rate_frames(f, v[i]);
        if ((modes & 2) && speech_hop_frames(f, v[i]) > largest) largest = speech_hop_frames(f, v[i]);
    }
    return largest;
}

void speech_eval_check(const run *r) {
    if (r->trainer.n_speech_durations + r->trainer.n_speech_rates == 0) return;
    if (!r->test.audio)
        die_input("eval.speech_durations and eval.speech_rates evaluate speech clips; data.name=%s is not speech (valid: "
                  "data.name=speech-commands, or leave both [])", r->trainer.data_name);
    const objective_kind *k = objective_find(r->settings.name);
    if (!k || !k->speech_ok) {
        char valid[160] = "";
        for (int i = 0; objective_at(i); i++)
            if (objective_at(i)->speech_ok)
                snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%sobjective.name=%s", valid[0] ? ", " : "",
                         objective_at(i)->name);
        die_input("eval.speech_durations and eval.speech_rates score a keyword classifier; objective.name=%s does not "
                  "have one (valid: %s, or leave both [])", r->settings.name, valid);
    }
}

// The model's frame stride in seconds (1D CAPE's positions) set to s, the evaluation positions
// restaged for it.
static void set_frame_seconds(model *m, float s) {
    if (m->cfg.frame_seconds == s) return;
    m->cfg.frame_seconds = s;
    if (m->pe->set_grid) m->pe->set_grid(m);
}

// The objective's evaluation on variant v of the test split, at its frame count and frame stride.
// *used: the stride the model evaluated with.
static eval_scores evaluate_variant(run *r, const speech_variant *v, float *used) {
    const float stride = r->model.cfg.frame_seconds;
    set_frame_seconds(&r->model, v->frame_seconds);
    *used = r->model.cfg.frame_seconds;
    r->variant = v;
    r->env.test_n = v->n;
    eval_scores e = r->obj.kind->evaluate(&r->obj, &r->env);
    r->variant = NULL;
    r->env.test_n = r->test.n;
    model_set_resolution(&r->model, r->train_size);
    set_frame_seconds(&r->model, stride);
    return e;
}

// kind 0: durations (seconds), 1: rates by resampling (percent), 2: rates by the STFT hop.
static void record_kind(run *r, int kind) {
    const train_settings *ts = &r->trainer;
    const int *values = kind ? ts->speech_rates : ts->speech_durations;
    int n = kind ? ts->n_speech_rates : ts->n_speech_durations;
    if (n == 0 || (kind && !(ts->speech_rate_modes & kind))) return;
    float value[CFG_LIST_MAX], x[CFG_LIST_MAX], frames[CFG_LIST_MAX], top1[CFG_LIST_MAX], top5[CFG_LIST_MAX], loss[CFG_LIST_MAX];
    float hop[CFG_LIST_MAX], stride[CFG_LIST_MAX];
    for (int i = 0; i < n; i++) {
        speech_variant v;
        char err[1600], name[64];
        int rc = kind == 2 ? speech_variant_hop(&r->test, values[i], &v, err, sizeof err)
                 : kind    ? speech_variant_rate(&r->test, values[i], &v, err, sizeof err)
                           : speech_variant_duration(&r->test, values[i], ts->background_volume, &v,
                                                     err, sizeof err);
        if (rc != 0) die_fail("%s", err);
        eval_scores e = evaluate_variant(r, &v, &stride[i]);
        value[i] = (float)values[i], x[i] = kind ? values[i] / 100.0f : (float)values[i], frames[i] = (float)v.frames;
        top1[i] = (float)e.metric[0], top5[i] = (float)e.metric[1], loss[i] = (float)e.loss;
        hop[i] = (float)speech_hop_samples(values[i]);
        if (kind == 2) snprintf(name, sizeof name, "top1_rate%d_hop", values[i]);
        else if (kind) snprintf(name, sizeof name, "top1_rate%d", values[i]);
        else snprintf(name, sizeof name, "top1_dur%ds", values[i]);
        results_attr_double(r->res, "/final", name, e.metric[0]);
        printf("test %s (%d frames): top1 %.2f%% top5 %.2f%%\n", name + 5, v.frames, 100.0 * e.metric[0], 100.0 * e.metric[1]);
        speech_variant_free(&v);
    }
    const char *group = kind == 2 ? "/speech_rate_hop" : kind ? "/speech_rate" : "/speech_duration";
    char path[64];
    int dims[1] = {n};
#define PUT(field, arr)                                                        \
    snprintf(path, sizeof path, "%s/%s", group, field);                        \
    results_dataset_f32(r->res, path, 1, dims, arr);
    if (kind) {
        PUT("rate", x);
        PUT("percent", value);
        if (kind == 2) {
            PUT("hop_samples", hop);
            PUT("frame_seconds", stride);
        }
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
    record_kind(r, 2);
}
