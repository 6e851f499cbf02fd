# Divide-and-conquer house (search/dc/: engine, SMSG layouts, refine; graphs from
# src/core/opgraph*.c, operator costs from cost/cost_ops.c).
prism_add_unit_test(test_dc SOURCES unit/test_dc.c)
prism_add_mpi_test(test_dc_ranks SOURCES mpi/test_dc_ranks.c)
prism_add_unit_test(test_smsg SOURCES unit/test_smsg.c)
prism_add_cli_test(cli_layouts SCRIPT tests/cli/layouts.sh TIMEOUT 120)
prism_add_unit_test(test_refine SOURCES unit/test_refine.c)
prism_add_cli_test(cli_refine SCRIPT tests/cli/refine.sh TIMEOUT 240)
