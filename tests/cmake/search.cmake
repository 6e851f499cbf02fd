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
# Header hygiene: each public header of the search module compiles alone and twice in a
# row (include guards, self-contained includes). Built, not run.
set(search_header_tus)
foreach(h space front search sink validate framework) # framework.h (cost) rides along
  set(tu ${CMAKE_CURRENT_BINARY_DIR}/header_${h}.c)
  file(WRITE ${tu} "#include <prism/${h}.h>\n#include <prism/${h}.h>\nint prism_header_${h}_internal(void);\nint prism_header_${h}_internal(void) { return 0; }\n")
  list(APPEND search_header_tus ${tu})
endforeach()
add_library(test_search_headers OBJECT ${search_header_tus})
target_link_libraries(test_search_headers PRIVATE prism_search prism_warnings)
