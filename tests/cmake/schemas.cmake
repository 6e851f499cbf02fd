# The --json schemas (src/app/schemas/): every command's output against its schema.
prism_add_cli_test(cli_schemas SCRIPT tests/cli/schemas.sh)
# Nightly only in a sanitizer build (label slow): the commands' C paths run under ASan in
# their own CLI tests; what this adds is the comparison of their output with the files.
if(PRISM_SANITIZE)
  set_property(TEST cli_schemas APPEND PROPERTY LABELS slow)
endif()
