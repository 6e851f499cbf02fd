# Divide-and-conquer engine benchmark (see benchmarks/README.md, section "dc").
add_executable(bench_dc ${CMAKE_CURRENT_SOURCE_DIR}/bench_dc.c)
target_link_libraries(bench_dc PRIVATE prism_dc prism_bench prism_warnings)
if(PRISM_BUILD_TESTS)
  add_test(NAME bench_dc
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${MPIEXEC_PREFLAGS}
            $<TARGET_FILE:bench_dc> ${MPIEXEC_POSTFLAGS} --n 2000 --reps 1 --power-max 1000)
  set_tests_properties(bench_dc PROPERTIES LABELS bench PROCESSORS 2 TIMEOUT 120
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1"
    PASS_REGULAR_EXPRESSION "\"equal\":true" FAIL_REGULAR_EXPRESSION "false")
endif()
