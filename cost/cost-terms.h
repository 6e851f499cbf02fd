/*
 * cost-terms.h - the named-term registry (cost_terms.c): unit and formula text for every
 * workspace array of the kernel, and where its value sits after a run. Private to cost/;
 * the levels and the info struct are public (explain.h: prism_term_count, prism_term_info).
 */
#ifndef PRISM_COST_TERMS_H
#define PRISM_COST_TERMS_H

#include <stddef.h>

#include <prism/explain.h>

#include "kernels/kernels-model.h"

const PrismTermInfo *prism_term_info_internal(PrismTermLevel level, unsigned i);
unsigned prism_term_count_internal(PrismTermLevel level);
/** Address of term @p i of @p level (slot/comp/cand @p index) in a workspace; lane 0 is
 *  element [0]. */
const double *prism_term_value_internal(const double *ws, const PrismKSegment *ks,
                                        PrismTermLevel level, unsigned index, unsigned i);

#endif /* PRISM_COST_TERMS_H */
