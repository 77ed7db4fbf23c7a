// bench/crosscheck/timm_match.c — which runs `crosscheck --init timm` can start from timm's
// VisionTransformer (timm_match.h): the keys whose values give a model with parameters timm's
// class does not have (gMLP's spatial units, MP3's position head, MAE's decoder, GVP's pixel
// head, relative bias tables) or an init timm does not apply (MAE's Xavier patch projection).
#include "timm_match.h"
#include <stdio.h>
#include <string.h>

int crosscheck_timm_matches(const config *c, char *why, size_t len) {
    const char *arch = cfg_str(c, "model.arch"), *objective = cfg_str(c, "objective.name");
    const char *pe = cfg_str(c, "pe.kind"), *embed = cfg_str(c, "model.embed_init");
    if (strcmp(arch, "vit")) {
        snprintf(why, len, "model.arch=%s: timm's VisionTransformer is a ViT (valid: model.arch=vit)", arch);
        return 0;
    }
    if (strcmp(objective, "supervised")) {
        snprintf(why, len, "objective.name=%s adds parameters timm's VisionTransformer has not (valid: "
                 "objective.name=supervised; --init torch covers the objectives' heads)", objective);
        return 0;
    }
    if (strcmp(pe, "abs") && strcmp(pe, "none")) {
        snprintf(why, len, "pe.kind=%s: timm's VisionTransformer has a learned table or none (valid: pe.kind=abs or none)", pe);
        return 0;
    }
    if (strcmp(embed, "timm")) {
        snprintf(why, len, "model.embed_init=%s: timm leaves its patch projection at PyTorch's default reset "
                 "(valid: model.embed_init=timm; --init torch follows %s)", embed, embed);
        return 0;
    }
    const char *linear = cfg_str(c, "model.linear_init");
    if (strcmp(linear, "timm")) {
        snprintf(why, len, "model.linear_init=%s: timm's VisionTransformer starts its Linear layers trunc-normal 0.02 "
                 "(valid: model.linear_init=timm)", linear);
        return 0;
    }
    return 1;
}
