# Core module tests (src/core): strategy rules, MPI wrapper, the ordered rank tree.
prism_add_unit_test(test_strategy SOURCES unit/test_strategy.c)
prism_add_unit_test(test_fwconfig SOURCES unit/test_fwconfig.c)
prism_add_unit_test(test_json SOURCES unit/test_json.c)
prism_add_mpi_test(test_comm SOURCES mpi/test_comm.c)
prism_add_mpi_test(test_comm_reduce SOURCES mpi/test_comm_reduce.c)
prism_add_unit_test(test_model_zoo SOURCES unit/test_model_zoo.c)
prism_add_unit_test(test_cluster SOURCES unit/test_cluster.c)
prism_add_unit_test(test_hf SOURCES unit/test_hf.c)
prism_add_unit_test(test_cli_options SOURCES unit/test_cli_options.c)
prism_add_cli_test(cli_models SCRIPT tests/cli/models.sh)
prism_add_cli_test(cli_clusters SCRIPT tests/cli/clusters.sh)
prism_add_cli_test(cli_version SCRIPT tests/cli/version.sh)
prism_add_cli_test(cli_bad_input SCRIPT tests/cli/bad_input.sh)
prism_add_cli_test(cli_fwconfig SCRIPT tests/cli/fwconfig.sh)
prism_add_cli_test(cli_fail_rank SCRIPT tests/cli/fail_rank.sh LABELS mpi)
prism_add_cli_test(comm_p2p_scan SCRIPT tests/cli/p2p_scan.sh)

# Fuzzing (tests/fuzz/README.md). The replay drivers are always built (gcc or clang) and
# run the corpus as CTests, so every crash the fuzzers ever found stays fixed. With
# -DPRISM_FUZZ=ON and CC=clang, the libFuzzer targets fuzz_hf, fuzz_cluster and
# fuzz_framework are built too, with prism_core (and prism_cost, the profile reader's
# library) instrumented for coverage.
foreach(reader hf cluster framework fwconfig)
  set(lib prism_core)
  if(reader STREQUAL "framework")
    set(lib prism_cost)
  endif()
  add_executable(fuzz_${reader}_replay fuzz/fuzz_${reader}.c fuzz/fuzz_replay.c)
  target_link_libraries(fuzz_${reader}_replay PRIVATE ${lib} prism_warnings)
  # the shipped profiles are the framework reader's valid seeds
  set(seeds "")
  if(reader STREQUAL "framework")
    set(seeds ${CMAKE_SOURCE_DIR}/cost/frameworks)
  endif()
  # the goldens of each framework's configuration and the published launch script
  if(reader STREQUAL "fwconfig")
    set(seeds ${CMAKE_SOURCE_DIR}/tests/golden/fwconfig ${CMAKE_SOURCE_DIR}/tests/data/fwconfig)
  endif()
  add_test(NAME fuzz_${reader}_replay
    COMMAND fuzz_${reader}_replay ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${reader} ${seeds})
  prism_test_env(env fuzz_${reader}_replay)
  set_tests_properties(fuzz_${reader}_replay PROPERTIES TIMEOUT 120 LABELS "unit;fuzz"
    ENVIRONMENT "${env}")
  if(PRISM_FUZZ)
    add_executable(fuzz_${reader} fuzz/fuzz_${reader}.c)
    target_compile_options(fuzz_${reader} PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_${reader} PRIVATE -fsanitize=fuzzer)
    target_link_libraries(fuzz_${reader} PRIVATE ${lib} prism_warnings)
  endif()
endforeach()
# Random command lines and mutated validation CSVs against the binary (fuzz/cli_random.py):
# every case must exit 0, or 2 with one message. A fixed sample in the main pass; a
# sanitizer build runs more cases of another seed nightly (label slow) under ASan+UBSan.
# prism_add_cli_random(NAME LABELS "MAIN ARGS" "SANITIZER ARGS" [EXTRA ENV])
function(prism_add_cli_random name labels main_args san_args)
  if(PRISM_SANITIZE)
    separate_arguments(args UNIX_COMMAND "${san_args} --timeout 300")
    set(labels "${labels};slow")
  else()
    separate_arguments(args UNIX_COMMAND "${main_args}")
  endif()
  add_test(NAME ${name} COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/cli_random.py
    $<TARGET_FILE:prism> ${args})
  prism_test_env(env ${name})
  list(APPEND env ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT 900 LABELS "${labels}"
    ENVIRONMENT "${env}")
endfunction()
# 100 cases (seed 1, about 4 CPU-s); sanitizer build 300 (seed 2).
prism_add_cli_random(fuzz_cli_random "cli;fuzz" "100 1" "300 2")
# The same generator, half its cases tame, with every plan, sweep and validate case run
# again under mpiexec at 2 or 3 ranks: the exit status, the output (or the one error line)
# and a sweep's datasets must be those of one rank. 24 cases (seed 3, about 17 CPU-s);
# sanitizer build 120 (seed 4).
prism_add_cli_random(fuzz_cli_ranks "cli;fuzz;mpi" "24 3 --ranks 2,3" "120 4 --ranks 2,3"
  ${PRISM_TEST_PML})
if(PRISM_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PRISM_FUZZ=ON needs clang (libFuzzer): configure a fresh build folder "
      "with CC=clang, e.g. CC=clang cmake -B build-fuzz -DPRISM_FUZZ=ON "
      "-DPRISM_SANITIZE=address,undefined")
  endif()
  target_compile_options(prism_core PRIVATE -fsanitize=fuzzer-no-link)
  target_compile_options(prism_cost PRIVATE -fsanitize=fuzzer-no-link)
endif()
