/*
 * training.h - the training setup: global batch, sequence length, dtype, optimizer and
 * memory budget. Plain data; nothing here is collective.
 */
#ifndef PRISM_TRAINING_H
#define PRISM_TRAINING_H

#include <stdint.h>

#include <glib.h>

#include <prism/cluster.h>

G_BEGIN_DECLS

typedef enum {
    PRISM_OPTIMIZER_ADAM = 0, /**< fp32 master copy + two fp32 moments */
    PRISM_OPTIMIZER_SGD = 1,  /**< fp32 master copy + one fp32 momentum */
    PRISM_OPTIMIZER_COUNT = 2,
} PrismOptimizer;

const char *prism_optimizer_name(PrismOptimizer opt);
gboolean prism_optimizer_parse(const char *text, PrismOptimizer *out, GError **error);

typedef struct PrismTraining {
    uint64_t gbs;     /**< global batch in sequences */
    uint64_t seq;     /**< sequence length in tokens */
    PrismDtype dtype; /**< compute / parameter dtype (mixed precision) */
    PrismOptimizer optimizer;
    double mem_budget_bytes; /**< 0 = the device memory of the cluster */
} PrismTraining;

/** The documented default example: gbs 1536, seq 2048, bf16, Adam. */
void prism_training_default(PrismTraining *out);

/** Positive sizes, seq <= model max positions is NOT checked here (see cost). */
gboolean prism_training_validate(const PrismTraining *training, GError **error);

G_END_DECLS

#endif /* PRISM_TRAINING_H */
