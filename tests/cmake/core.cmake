# Core module tests (src/core): strategy rules, MPI wrapper, the ordered rank tree.
prism_add_unit_test(test_strategy SOURCES unit/test_strategy.c)
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
prism_add_cli_test(cli_fail_rank SCRIPT tests/cli/fail_rank.sh LABELS mpi)
prism_add_cli_test(comm_p2p_scan SCRIPT tests/cli/p2p_scan.sh)

# Fuzzing (tests/fuzz/README.md). The replay drivers are always built (gcc or clang) and
# run the corpus as CTests, so every crash the fuzzers ever found stays fixed. With
# -DPRISM_FUZZ=ON and CC=clang, the libFuzzer targets fuzz_hf, fuzz_cluster and
# fuzz_framework are built too, with prism_core (and prism_cost, the profile reader's
# library) instrumented for coverage.
foreach(reader hf cluster framework)
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
# every case must exit 0, or 2 with one message. A fixed sample in the main pass (100
# cases, about 4 CPU-s); a sanitizer build runs 300 others nightly (label slow) under
# ASan+UBSan.
if(PRISM_SANITIZE)
  set(cli_random_args 300 2 --timeout 300)
  set(cli_random_labels "cli;fuzz;slow")
else()
  set(cli_random_args 100 1)
  set(cli_random_labels "cli;fuzz")
endif()
add_test(NAME fuzz_cli_random COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/cli_random.py
  $<TARGET_FILE:prism> ${cli_random_args})
prism_test_env(env fuzz_cli_random)
set_tests_properties(fuzz_cli_random PROPERTIES TIMEOUT 900 LABELS "${cli_random_labels}"
  ENVIRONMENT "${env}")
if(PRISM_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PRISM_FUZZ=ON needs clang (libFuzzer): configure a fresh build folder "
      "with CC=clang, e.g. CC=clang cmake -B build-fuzz -DPRISM_FUZZ=ON "
      "-DPRISM_SANITIZE=address,undefined")
  endif()
  target_compile_options(prism_core PRIVATE -fsanitize=fuzzer-no-link)
  target_compile_options(prism_cost PRIVATE -fsanitize=fuzzer-no-link)
endif()
