# version.cmake - regenerate <build>/include/prism/version.h at build time (`cmake -P`, run
# by the prism_version target of CMakeLists.txt before any library compiles), so that the
# git revision in `prism version`, the benchmarks and every landscape's `git_revision`
# attribute is the one built, not the one of the last configure. configure_file leaves the
# file untouched when nothing changed, so only a new revision recompiles its few users.
# Inputs (-D): PRISM_SOURCE_DIR, PRISM_VERSION_OUT and the values version.h.in names
# (PRISM_ISAS comma-separated as PRISM_ISAS_COMMA).
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${PRISM_SOURCE_DIR} OUTPUT_VARIABLE PRISM_GIT_REV
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT PRISM_GIT_REV)
  set(PRISM_GIT_REV "unknown")
endif()
string(REPLACE "," ";" PRISM_ISAS "${PRISM_ISAS_COMMA}")
configure_file(${PRISM_SOURCE_DIR}/include/prism/version.h.in ${PRISM_VERSION_OUT} @ONLY)
