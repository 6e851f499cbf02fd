# Grid sweeps at dataset scale through the CLI (benchmarks/scale_sweep.sh; the 10^7 and
# 10^8-row grids are benchmarks/grids/*.ini, run by hand: benchmarks/README.md). The CTest
# runs the script once on the 8-point test grid at 1 and 2 ranks (label bench).
add_test(NAME bench_scale_sweep
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scale_sweep.sh $<TARGET_FILE:prism>
          ${CMAKE_SOURCE_DIR}/tests/data/grids/small.ini ${CMAKE_CURRENT_BINARY_DIR}/scale-small "1 2")
set_tests_properties(bench_scale_sweep PROPERTIES LABELS bench TIMEOUT 600 PROCESSORS 2
  PASS_REGULAR_EXPRESSION "prism pareto: [0-9.]+ s wall"
  ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;HDF5_PLUGIN_PATH=${CMAKE_BINARY_DIR}/h5plugins")
