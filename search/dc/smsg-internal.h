/*
 * smsg-internal.h - private helpers of the SMSG instance shared by smsg_*.c: the graph
 * builder used by the JSON reader and the built-in graphs.
 */
#ifndef PRISM_SMSG_INTERNAL_H
#define PRISM_SMSG_INTERNAL_H

#include <prism/smsg.h>

typedef struct PrismSmsgBuilder {
    GArray *ops; /* PrismOp */
    char *name;
    double batch, seq, elem_bytes;
} PrismSmsgBuilder;

void prism_smsg_builder_init_internal(PrismSmsgBuilder *b, const char *name, double batch,
                                      double seq, double elem_bytes);
/* Append a copy of @p tmpl (kind and parameters) named @p name with @p inputs (indices
 * of earlier ops); rows, features and channels are derived. Returns the new index. */
uint32_t prism_smsg_builder_add_internal(PrismSmsgBuilder *b, const PrismOp *tmpl,
                                         const char *name, const uint32_t *inputs,
                                         uint32_t n_inputs);
PrismOpGraph *prism_smsg_builder_finish_internal(PrismSmsgBuilder *b, const char *source);
void prism_smsg_builder_clear_internal(PrismSmsgBuilder *b);

#endif /* PRISM_SMSG_INTERNAL_H */
