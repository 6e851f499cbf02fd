# Search module tests (search/): strategy space, Pareto fronts, top-k, cross-rank merge,
# the driver and `prism plan`.
# 15 s in the normal build, 80-100 s under ASan+UBSan (loaded), hence the timeout.
prism_add_unit_test(test_space SOURCES unit/test_space.c TIMEOUT 300)
prism_add_unit_test(test_front SOURCES unit/test_front.c)
prism_add_unit_test(test_topk SOURCES unit/test_topk.c)
prism_add_mpi_test(test_reduce SOURCES mpi/test_reduce.c RANKS 1 2 3 4 TIMEOUT 60)
prism_add_mpi_test(test_search SOURCES mpi/test_search.c RANKS 1 2 3 4 TIMEOUT 120)
# the bounds' identity over the zoo (every model, random knobs and budgets)
prism_add_mpi_test(test_bounds SOURCES mpi/test_bounds.c RANKS 1 2 3 4 TIMEOUT 180)
prism_add_mpi_test(test_rank_invariance SOURCES mpi/test_rank_invariance.c RANKS 1 2 3 4 TIMEOUT 180)
prism_add_cli_test(cli_plan SCRIPT tests/cli/plan.sh TIMEOUT 300)
prism_add_unit_test(test_front_golden SOURCES unit/test_front_golden.c LABELS golden)
# The libraries return data: no library header brings json-glib.
# (Self-containment of every header is tests/cmake/structure.cmake.) Built, not run.
set(tu ${CMAKE_CURRENT_BINARY_DIR}/header_no_json.c)
file(WRITE ${tu} "#include <prism/cost.h>\n#include <prism/search.h>\n#include <prism/refine.h>\n#ifdef JSON_TYPE_BUILDER\n#error a library header includes json-glib\n#endif\nint prism_header_no_json_internal(void);\nint prism_header_no_json_internal(void) { return 0; }\n")
add_library(test_search_headers OBJECT ${tu})
target_link_libraries(test_search_headers PRIVATE prism_search prism_warnings)
