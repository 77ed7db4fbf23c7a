// models/backbones/gmlp_settings.c — the gMLP / aMLP settings of any model config, for readers
// outside models/ (perf's PyTorch command line): the config's own when its backbone is gmlp or
// amlp (backbone_find), else zeros. Above the backbone registry, which it asks, so gmlp.c does
// not call the registry back.
#include "gmlp.h"
#include "../backbone.h"

gmlp_settings gmlp_settings_of(const model_config *c) {
    const backbone_kind *arch = backbone_find(c->arch);
    return arch == &backbone_gmlp || arch == &backbone_amlp ? *BACKBONE_OWN(c, const gmlp_settings) : (gmlp_settings){0};
}
