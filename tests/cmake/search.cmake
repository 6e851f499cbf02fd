# Search module tests (search/): strategy space, Pareto fronts, top-k, cross-rank merge,
# the driver and `prism plan`.
prism_add_unit_test(test_space SOURCES unit/test_space.c)
prism_add_unit_test(test_front SOURCES unit/test_front.c)
prism_add_unit_test(test_topk SOURCES unit/test_topk.c)
prism_add_mpi_test(test_reduce SOURCES mpi/test_reduce.c RANKS 1 2 3 4 TIMEOUT 60)
prism_add_mpi_test(test_search SOURCES mpi/test_search.c RANKS 1 2 3 4 TIMEOUT 120)
prism_add_mpi_test(test_rank_invariance SOURCES mpi/test_rank_invariance.c RANKS 1 2 3 4 TIMEOUT 180)
prism_add_cli_test(cli_plan SCRIPT tests/cli/plan.sh TIMEOUT 300)
prism_add_unit_test(test_front_golden SOURCES unit/test_front_golden.c LABELS golden)
