# Structure of the tree (label `structure`): include layering and circles, and header
# self-containment.

# Layers core < cost < search (two houses: search/, search/dc/) < io+analysis (two houses:
# io/, search/analysis/) < app; no upward or cross-house include, no include circle between
# modules, no call circle between .c files.
# The script also plants each kind of violation in temporary copies of the tree and
# requires it to be reported (tests/structure/check_includes.py).
add_test(NAME check_includes
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/structure/check_includes.py
          --root ${CMAKE_SOURCE_DIR} --self-test)
set_tests_properties(check_includes PROPERTIES LABELS "structure" TIMEOUT 60)

# Every public header (the glob covers a new one at the next configure) compiles alone,
# and twice in a row (include guards), in a translation unit of its own, with the
# project's warnings. Built with everything else (`all`), not run: a header that is not
# self-contained breaks the build.
file(GLOB prism_public_headers CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/prism/*.h)
list(APPEND prism_public_headers ${CMAKE_BINARY_DIR}/include/prism/version.h)
set(prism_header_tus)
foreach(h IN LISTS prism_public_headers)
  get_filename_component(n ${h} NAME_WE)
  set(tu ${CMAKE_CURRENT_BINARY_DIR}/header_${n}.c)
  file(CONFIGURE OUTPUT ${tu} CONTENT "#include <prism/${n}.h>\n#include <prism/${n}.h>\nint prism_header_${n}_internal(void);\nint prism_header_${n}_internal(void) { return 0; }\n")
  list(APPEND prism_header_tus ${tu})
endforeach()
add_library(test_headers OBJECT ${prism_header_tus})
target_link_libraries(test_headers PRIVATE prism_app prism_dc prism_warnings)

# Every public prototype taking a PrismComm says whether it is collective (PETSc's
# "Collective"/"Not collective"); the script proves it can fail on a planted header.
file(GLOB prism_public_headers_doc CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/prism/*.h)
add_test(NAME check_collective
  COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/structure/check_collective.py
          --self-test ${prism_public_headers_doc})
set_tests_properties(check_collective PROPERTIES LABELS "structure" TIMEOUT 30)

# The house format: clang-format 14 with .clang-format, --dry-run -Werror over every C
# source and header (self-tested on a planted drift; skipped without clang-format except
# under CI=true, where scripts/setup.sh --tests installs it).
add_test(NAME check_style
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/structure/check_style.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(check_style PROPERTIES LABELS "structure" TIMEOUT 120
  SKIP_RETURN_CODE 77)
