// bench/crosscheck/timm_match.c — which runs `crosscheck --init timm` can start from timm's
// VisionTransformer (timm_match.h): the keys whose values give a model with parameters timm's
// class does not have (gMLP's spatial units, MP3's position head, MAE's decoder, GVP's pixel
// head, relative bias tables) or an init timm does not apply (MAE's Xavier patch projection).
#include "timm_match.h"
#include "../../models/backbone.h"
#include "../../models/posenc/encoding.h"
#include "../../objectives/objective.h"
#include <stdio.h>
#include <string.h>

static int pe_timm(const posenc_kind *k) { return k->timm_vit; }

int crosscheck_timm_matches(const config *c, char *why, size_t len) {
    const char *arch = cfg_str(c, "model.arch"), *objective = cfg_str(c, "objective.name");
    const char *pe = cfg_str(c, "pe.kind"), *embed = cfg_str(c, "model.embed_init");
    char valid[256] = "";
    const backbone_kind *b = backbone_find(arch);
    if (!b || !b->timm_vit) {
        for (int i = 0; backbone_at(i); i++)
            if (backbone_at(i)->timm_vit) snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", valid[0] ? " or " : "", backbone_at(i)->name);
        snprintf(why, len, "model.arch=%s: timm's VisionTransformer is a ViT (valid: model.arch=%s)", arch, valid);
        return 0;
    }
    const objective_kind *o = objective_find(objective);
    if (!o || !o->timm_vit) {
        for (int i = 0; objective_at(i); i++)
            if (objective_at(i)->timm_vit) snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", valid[0] ? " or " : "", objective_at(i)->name);
        snprintf(why, len, "objective.name=%s adds parameters timm's VisionTransformer has not (valid: "
                 "objective.name=%s; --init torch covers the objectives' heads)", objective, valid);
        return 0;
    }
    const posenc_kind *k = posenc_find(pe);
    if (!k || !k->timm_vit) {
        snprintf(why, len, "pe.kind=%s: timm's VisionTransformer has a learned table or none (valid: pe.kind=%s)", pe,
                 posenc_names_where(pe_timm, valid, sizeof valid));
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
