# Per-ISA kernel objects. The kernel body is written once (kernels-impl.h) and compiled
# once per ISA with that ISA's flags; nothing else in the project sees -m<isa> flags.
# -fno-trapping-math lets gcc if-convert the ternary selects for AVX2 (no masked ops);
# it changes no computed value (only whether FP exceptions may be raised speculatively).
# The scalar build is always present: it is the reference every other ISA must match
# bit for bit (so -ffp-contract=off everywhere and never -ffast-math).
include(CheckCCompilerFlag)
set(PRISM_KERNEL_OBJECTS "")
set(PRISM_KERNEL_DEFS "")
set(PRISM_KERNEL_ISAS_BUILT "")  # the ISAs this build really compiles (tests use it)
set(_prism_isa_flags_scalar "-O2;-fno-tree-vectorize")
set(_prism_isa_flags_avx2 "-O3;-mavx2;-mfma;-mno-avx512f")
set(_prism_isa_flags_avx512 "-O3;-mavx512f;-mavx512dq;-mavx512vl;-mavx512bw;-mprefer-vector-width=512")
set(_prism_isas scalar)
foreach(isa IN LISTS PRISM_ISAS)
  if(NOT isa STREQUAL "scalar")
    list(APPEND _prism_isas ${isa})
  endif()
endforeach()
foreach(isa IN LISTS _prism_isas)
  if(NOT DEFINED _prism_isa_flags_${isa})
    message(FATAL_ERROR "PRISM_ISAS: unknown ISA '${isa}' (allowed: scalar, avx2, avx512)")
  endif()
  set(_flags ${_prism_isa_flags_${isa}})
  # A sanitizer build compiles the kernels at -O1 (the level scripts/test.sh gives that
  # whole build; set here too so that a plain Debug build does not run them at -O0): at
  # -O2/-O3 under ASan+UBSan the three objects took 69 of the build's 177 CPU-s, at -O1
  # 33, and the sanitizer pass's tests ran no slower (tests/README.md, "Measured times").
  # Bit identity does not depend on the level (no contraction, no fast-math, either way).
  if(PRISM_SANITIZE)
    list(FILTER _flags EXCLUDE REGEX "^-O")
    list(APPEND _flags -O1)
  endif()
  string(REPLACE ";" " " _flagstr "${_flags}")
  check_c_compiler_flag("${_flagstr}" PRISM_CC_HAS_${isa})
  if(NOT PRISM_CC_HAS_${isa})
    message(STATUS "prism: compiler cannot build the ${isa} kernels; skipping")
    continue()
  endif()
  add_library(prism_kernels_${isa} OBJECT ${CMAKE_SOURCE_DIR}/cost/kernels/kernels_${isa}.c)
  target_include_directories(prism_kernels_${isa} PRIVATE ${CMAKE_SOURCE_DIR}/cost/kernels)
  target_compile_options(prism_kernels_${isa} PRIVATE ${_flags} -ffp-contract=off -fno-fast-math
    -fno-trapping-math)
  target_link_libraries(prism_kernels_${isa} PRIVATE prism_warnings)
  string(TOUPPER ${isa} _ISA)
  list(APPEND PRISM_KERNEL_OBJECTS $<TARGET_OBJECTS:prism_kernels_${isa}>)
  list(APPEND PRISM_KERNEL_DEFS PRISM_HAVE_KERNEL_${_ISA}=1)
  list(APPEND PRISM_KERNEL_ISAS_BUILT ${isa})
endforeach()
set_source_files_properties(${CMAKE_SOURCE_DIR}/cost/kernels/kernels_dispatch.c
  PROPERTIES COMPILE_DEFINITIONS "${PRISM_KERNEL_DEFS}")
list(APPEND PRISM_KERNEL_OBJECTS ${CMAKE_SOURCE_DIR}/cost/kernels/kernels_dispatch.c)
