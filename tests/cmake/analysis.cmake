# Analysis house tests (search/analysis/): `prism validate` and its order statistic, the
# track record plan and explain print, the "nothing fits" diagnosis, the grid model.
prism_add_cli_test(cli_validate SCRIPT tests/cli/validate.sh LABELS analysis)
# `prism validate`: rows predicted/planned/skipped, framework order, defaults, OOM/MoE rows,
# malformed cells, and the planned rows' search against a brute force at 1-4 ranks.
prism_add_mpi_test(test_validate SOURCES mpi/test_validate.c unit/test_cost_support.c RANKS 1 2 3 4 LABELS analysis TIMEOUT 120)
prism_add_unit_test(test_track SOURCES unit/test_track.c LABELS analysis)
prism_add_mpi_test(test_diagnose SOURCES mpi/test_diagnose.c RANKS 1 2 3 4 LABELS analysis TIMEOUT 120)
prism_add_cli_test(cli_track SCRIPT tests/cli/track.sh LABELS analysis TIMEOUT 300)
# Grid files (grid_file.c) and the grid model (grid.c): points, conflicts, shared knobs.
prism_add_unit_test(test_grid SOURCES unit/test_grid.c LABELS analysis)
# The analysis headers bring no json-glib either (the libraries return data), and need
# nothing of io. Built, not run.
set(tu ${CMAKE_CURRENT_BINARY_DIR}/header_analysis_no_json.c)
file(WRITE ${tu} "#include <prism/validate.h>\n#include <prism/diagnose.h>\n#include <prism/grid.h>\n#ifdef JSON_TYPE_BUILDER\n#error a library header includes json-glib\n#endif\nint prism_header_analysis_no_json_internal(void);\nint prism_header_analysis_no_json_internal(void) { return 0; }\n")
add_library(test_analysis_headers OBJECT ${tu})
target_link_libraries(test_analysis_headers PRIVATE prism_analysis prism_warnings)
# one number, one unit: validate = explain = plan on rows of the shared CSVs, every explain
# value = its printed formula (tests/cli/one_number.sh)
prism_add_cli_test(cli_one_number SCRIPT tests/cli/one_number.sh LABELS analysis)
# Nightly only in a sanitizer build (label slow): CLI plumbing whose C paths (explain,
# validate --explain, plan --fix) cli_explain, cli_validate and cli_plan run under ASan.
if(PRISM_SANITIZE)
  set_property(TEST cli_one_number APPEND PROPERTY LABELS slow)
endif()
