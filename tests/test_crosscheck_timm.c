// tests/test_crosscheck_timm.c — which runs `posbench crosscheck --init timm` accepts
// (bench/crosscheck/timm_match.c): the default ViT (abs, supervised, timm inits) and pe.kind none
// match timm's VisionTransformer; model.arch gmlp / amlp, an objective with a head of its own
// (mp3, mae, gvp), a position encoding timm's class has not (sin2d, relbias, rope, cape),
// model.embed_init xavier / normal002 and model.linear_init xavier are refused, each reason
// naming the key, its value and what is valid. Runs everywhere (no Python).
#include "testing.h"
#include "../bench/config/config.h"
#include "../bench/crosscheck/timm_match.h"
#include <stdio.h>
#include <string.h>

// config_defaults with one key=value set (NULL: none); returns crosscheck_timm_matches.
static int matches_with(const char *override, char *why, size_t len) {
    config c;
    config_defaults(&c);
    char err[256];
    int ok = 1;
    if (override && config_apply_override(&c, override, err, sizeof err) != 0) {
        snprintf(why, len, "override %s refused: %s", override, err);
        ok = -1;
    }
    if (ok == 1) {
        why[0] = 0;
        ok = crosscheck_timm_matches(&c, why, len);
    }
    config_free(&c);
    return ok;
}

static void accepted(const char *override) {
    char why[512], name[200];
    snprintf(name, sizeof name, "crosscheck --init timm: %s matches timm's VisionTransformer", override ? override : "the default ViT");
    int ok = matches_with(override, why, sizeof why);
    test_check(name, ok == 1, "%s", ok == 1 ? "accepted" : why);
}

// Refused, the reason naming want (the key=value) and valid (what is valid).
static void refused(const char *override, const char *valid) {
    char why[512], name[200];
    snprintf(name, sizeof name, "crosscheck --init timm: %s is refused naming it and '%s'", override, valid);
    int ok = matches_with(override, why, sizeof why);
    test_check(name, ok == 0 && strstr(why, override) && strstr(why, valid), "got %d '%s'", ok, why);
}

int main(void) {
    accepted(NULL);
    accepted("pe.kind=none");
    accepted("model.cls=false");
    refused("model.arch=gmlp", "valid: model.arch=vit");
    refused("model.arch=amlp", "valid: model.arch=vit");
    refused("objective.name=mp3", "valid: objective.name=supervised");
    refused("objective.name=mae", "valid: objective.name=supervised");
    refused("objective.name=gvp", "valid: objective.name=supervised");
    refused("pe.kind=sin2d", "valid: pe.kind=none, abs");
    refused("pe.kind=relbias", "valid: pe.kind=none, abs");
    refused("pe.kind=rope", "valid: pe.kind=none, abs");
    refused("pe.kind=cape", "valid: pe.kind=none, abs");
    refused("model.embed_init=xavier", "valid: model.embed_init=timm");
    refused("model.embed_init=normal002", "valid: model.embed_init=timm");
    refused("model.linear_init=xavier", "valid: model.linear_init=timm");
    return test_exit_code();
}
