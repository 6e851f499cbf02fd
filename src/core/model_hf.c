// SPDX-License-Identifier: MIT
/*
 * model_hf.c - Hugging Face config.json reader and the --model resolver.
 * (reader lands in the next commit)
 */
#include <prism/model.h>

#include <string.h>

#include <prism/core.h>

PrismModel *prism_model_from_hf_config(const char *path, GError **error)
{
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNSUPPORTED,
                "%s: config.json reading is not implemented yet", path);
    return NULL;
}

PrismModel *prism_model_resolve(const char *name_or_path, GError **error)
{
    if (strchr(name_or_path, '/') != NULL || g_str_has_suffix(name_or_path, ".json"))
        return prism_model_from_hf_config(name_or_path, error);
    return prism_model_zoo_get(name_or_path, error);
}
