# Search benchmarks (search/): end-to-end plan search, front insert/merge, cross-rank merge.
foreach(b bench_e2e bench_front bench_reduce)
  add_executable(${b} ${b}.c)
  target_link_libraries(${b} PRIVATE prism_search prism_bench prism_warnings)
endforeach()
add_test(NAME bench_e2e COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
         $<TARGET_FILE:bench_e2e> --quick --reps 1)
add_test(NAME bench_front COMMAND bench_front --quick)
add_test(NAME bench_reduce COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
         $<TARGET_FILE:bench_reduce> --quick)
set_tests_properties(bench_e2e bench_front bench_reduce PROPERTIES LABELS bench TIMEOUT 300
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1")
set_tests_properties(bench_e2e bench_reduce PROPERTIES PROCESSORS 2)
