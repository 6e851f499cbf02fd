# HDF5 landscape benchmark (io/): sweep with and without the landscape, per deflate level.
add_executable(bench_io bench_io.c)
target_link_libraries(bench_io PRIVATE prism_io prism_bench prism_warnings)
add_test(NAME bench_io COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
         $<TARGET_FILE:bench_io> --quick --reps 1)
set_tests_properties(bench_io PROPERTIES LABELS bench TIMEOUT 300 PROCESSORS 2
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_sharedfp=^sm,lockedfile")
