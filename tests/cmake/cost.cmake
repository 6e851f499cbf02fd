# Cost-model tests (cost/): hand-derived formulas, kernels against the scalar reference,
# fast candidate path against every stage, explain/knobs CLI.
prism_add_unit_test(test_cost_formulas
  SOURCES unit/test_cost_formulas.c unit/test_cost_support.c LABELS cost)
prism_add_cli_test(cli_explain SCRIPT tests/cli/explain.sh LABELS cost)
# Knob ranges, corners and intervals (cost_ranges.c, cost_pick.c): hand-derived corners.
prism_add_unit_test(test_intervals
  SOURCES unit/test_intervals.c unit/test_cost_support.c LABELS cost)

# Kernels: one build, one CTest per SIMD ISA this build compiles (PRISM_ISA set; exit 77 =
# skipped only when the CPU lacks it, never because the build does), plus the
# candidate-path and dispatch suites. The scalar kernel is the reference, so it has no
# "against scalar" test of its own; the naive walker in test_cost_properties checks it.
prism_add_unit_test(test_kernels SOURCES unit/test_kernels.c unit/test_cost_support.c
  LABELS "cost;kernel" ARGS kernels_dispatch)
set(_prism_simd_isas ${PRISM_KERNEL_ISAS_BUILT})
list(REMOVE_ITEM _prism_simd_isas scalar)
foreach(isa IN LISTS _prism_simd_isas)
  add_test(NAME test_kernels.${isa} COMMAND test_kernels kernels_isa)
  prism_test_env(env test_kernels.${isa})
  set_tests_properties(test_kernels.${isa} PROPERTIES TIMEOUT 300
    LABELS "unit;cost;kernel" ENVIRONMENT "${env};PRISM_ISA=${isa}" SKIP_RETURN_CODE 77)
endforeach()
add_test(NAME test_kernels.candidates COMMAND test_kernels kernels_cands)
prism_test_env(env test_kernels.candidates)
set_tests_properties(test_kernels.candidates PROPERTIES TIMEOUT 300
  LABELS "unit;cost;kernel" ENVIRONMENT "${env}")
# 4 s in the normal build, about 150 s under ASan+UBSan (full unwinding on every allocation
# while the walkers build explain's terms), hence the timeout.
prism_add_unit_test(test_cost_properties
  SOURCES unit/test_cost_properties.c unit/test_cost_support.c LABELS cost TIMEOUT 360)
# Framework profiles: each shipped profile's values, refusal of bad profile files.
prism_add_unit_test(test_framework SOURCES unit/test_framework.c LABELS cost)
# Citations: every knob default, preset attribute, shipped profile and sources.ini key
# carries a "KIND: WHERE" source; copies with a missing or bad one are flagged.
prism_add_unit_test(test_sources SOURCES unit/test_sources.c LABELS cost)
# The shape-aware compute model: the wave/tile model by hand, the FP8 recipes, and the
# physical bound over every zoo model x every preset.
prism_add_unit_test(test_gemm SOURCES unit/test_gemm.c unit/test_cost_support.c LABELS cost)
# Data and context parallelism (FSDP/HSDP/distributed optimizer, CP ring and all-to-all).
prism_add_unit_test(test_cost_dist
  SOURCES unit/test_cost_dist.c unit/test_cost_support.c LABELS cost)
# The 2026 machines (NVFP4 memory, the 72-GPU NVLink level) by hand.
prism_add_unit_test(test_machines
  SOURCES unit/test_machines.c unit/test_cost_support.c LABELS cost)
