# Cost-model benchmarks: kernel throughput per ISA (bench_kernels) on the shared harness.
add_library(prism_bench STATIC bench.c)
target_include_directories(prism_bench PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(prism_bench PUBLIC prism_core PRIVATE prism_warnings)
add_executable(bench_kernels bench_kernels.c)
target_link_libraries(bench_kernels PRIVATE prism_cost prism_bench prism_warnings)
add_test(NAME bench_kernels COMMAND bench_kernels --quick --batch 256)
set_tests_properties(bench_kernels PROPERTIES LABELS bench TIMEOUT 300)
