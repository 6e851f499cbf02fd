# io module tests (io/, src/app/cmd_sweep.c, cmd_info.c, cmd_pareto.c): the landscape
# writer/reader with synthetic batches at 1-4 ranks.
prism_add_mpi_test(test_io_landscape SOURCES mpi/test_io_landscape.c LABELS io TIMEOUT 120)
target_include_directories(test_io_landscape PRIVATE ${CMAKE_SOURCE_DIR}/io)
