# Search module tests (search/): strategy space, Pareto fronts, top-k, cross-rank merge,
# the driver and `prism plan`.
prism_add_unit_test(test_space SOURCES unit/test_space.c)
prism_add_unit_test(test_front SOURCES unit/test_front.c)
prism_add_unit_test(test_topk SOURCES unit/test_topk.c)
prism_add_mpi_test(test_reduce SOURCES mpi/test_reduce.c RANKS 1 2 3 4 TIMEOUT 60)
