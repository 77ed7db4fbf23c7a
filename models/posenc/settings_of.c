// models/posenc/settings_of.c — the rope and cape settings of any model config, for readers
// outside models/ (the crosscheck plan lists them for every run): the config's own when its
// encoding is that kind (posenc_for_model), else the keys' defaults. Above the registry, which
// it asks, so no encoding calls the registry back.
#include "encoding.h"
#include "rope.h"
#include "cape.h"

posenc_rope_settings posenc_rope_settings_of(const model_config *c) {
    if (posenc_for_model(c) == &posenc_rope) return *POSENC_OWN(c, const posenc_rope_settings);
    return (posenc_rope_settings){(int)posenc_key_default(&posenc_rope, "pe.rope_dims"),
                                  (float)posenc_key_default(&posenc_rope, "pe.rope_base")};
}

posenc_cape_settings posenc_cape_settings_of(const model_config *c) {
    const posenc_kind *k = posenc_for_model(c);
    if (k == &posenc_cape || k == &posenc_cape1d) return *POSENC_OWN(c, const posenc_cape_settings);
    return (posenc_cape_settings){(float)posenc_key_default(&posenc_cape, "pe.cape_global_shift"),
                                  (float)posenc_key_default(&posenc_cape, "pe.cape_local_shift"),
                                  (float)posenc_key_default(&posenc_cape, "pe.cape_scale"),
                                  (float)posenc_key_default(&posenc_cape1d, "pe.cape_time_shift")};
}
