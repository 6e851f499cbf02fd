/*
 * cost-terms.h - the named-term registry (cost_terms.c): unit and formula text for every
 * workspace array of the kernel, and where its value sits after a run. Private to cost/.
 */
#ifndef PRISM_COST_TERMS_H
#define PRISM_COST_TERMS_H

#include <stddef.h>

#include "kernels/kernels-model.h"

typedef enum {
    PRISM_TERM_LANE = 0,  /**< one value per strategy */
    PRISM_TERM_SLOT = 1,  /**< per layer kind and recompute mode, per layer, per micro-batch */
    PRISM_TERM_COMP = 2,  /**< per stage composition */
    PRISM_TERM_CAND = 3,  /**< per stage (memory) */
    PRISM_TERM_FINAL = 4, /**< step-level scratch */
} PrismTermLevel;

typedef struct PrismTermInfo {
    const char *name;
    const char *unit;
    const char *formula;
} PrismTermInfo;

const PrismTermInfo *prism_term_info_internal(PrismTermLevel level, unsigned i);
unsigned prism_term_count_internal(PrismTermLevel level);
/** Address of term @p i of @p level (slot/comp/cand @p index) in a workspace; lane 0 is
 *  element [0]. */
const double *prism_term_value_internal(const double *ws, const PrismKSegment *ks,
                                        PrismTermLevel level, unsigned index, unsigned i);

#endif /* PRISM_COST_TERMS_H */
