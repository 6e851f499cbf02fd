# Core module tests (src/core): strategy rules, MPI wrapper.
prism_add_unit_test(test_strategy SOURCES unit/test_strategy.c)
prism_add_mpi_test(test_comm SOURCES mpi/test_comm.c)
prism_add_unit_test(test_model_zoo SOURCES unit/test_model_zoo.c)
prism_add_unit_test(test_cluster SOURCES unit/test_cluster.c)
