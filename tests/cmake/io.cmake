# io module tests (io/, src/app/cmd_sweep.c, cmd_info.c, cmd_pareto.c): the landscape
# writer/reader and the stored-landscape queries with synthetic batches at 1-4 ranks.
prism_add_mpi_test(test_io_landscape SOURCES mpi/test_io_landscape.c mpi/test_io_synth.c
  LABELS io TIMEOUT 120)
target_include_directories(test_io_landscape PRIVATE ${CMAKE_SOURCE_DIR}/io)
prism_add_mpi_test(test_io_query SOURCES mpi/test_io_query.c mpi/test_io_synth.c
  LABELS io TIMEOUT 120)
prism_add_cli_test(cli_sweep SCRIPT tests/cli/sweep.sh LABELS io TIMEOUT 240)
prism_add_cli_test(cli_sweep_resume SCRIPT tests/cli/sweep_resume.sh LABELS "io;mpi" TIMEOUT 240)
prism_add_cli_test(cli_sweep_nospace SCRIPT tests/cli/sweep_nospace.sh LABELS "io;mpi" TIMEOUT 180)
prism_add_cli_test(cli_sweep_scripts SCRIPT tests/cli/sweep_scripts.sh LABELS io TIMEOUT 240)
# Every HDF5 call in io/ goes through PRISM_H5_TRY (the error capture of io-internal.h).
add_test(NAME io_h5_try_scan
  COMMAND /usr/bin/python3 ${CMAKE_SOURCE_DIR}/tests/support/h5_try_scan.py ${CMAKE_SOURCE_DIR}/io)
set_tests_properties(io_h5_try_scan PROPERTIES LABELS io TIMEOUT 30)
prism_add_cli_test(cli_sweep_safety SCRIPT tests/cli/sweep_safety.sh LABELS io TIMEOUT 90)
prism_add_cli_test(cli_sweep_integrity SCRIPT tests/cli/sweep_integrity.sh LABELS io TIMEOUT 90)

# scripts/slurm_sweep.sbatch under a private one-node Slurm (skipped without root or the
# packages of `scripts/setup.sh --tests`; required under CI=true).
# Under the sanitizers cli_slurm is nightly (label slow): its checks are timed against
# srun's signals and --kill-on-bad-exit, and the sanitizers' exit work (about 1.5 s a rank)
# reorders them (a bad-input rank exiting 2 before its peer gets the peer SIGTERMed: 143);
# the prism code it runs is the sweep/resume code the other sanitized tests cover.
if(PRISM_SANITIZE)
  prism_add_cli_test(cli_slurm SCRIPT tests/cli/slurm.sh LABELS "io;mpi;slurm;slow" TIMEOUT 240)
else()
  prism_add_cli_test(cli_slurm SCRIPT tests/cli/slurm.sh LABELS "io;mpi;slurm" TIMEOUT 240)
endif()
# Large grids: bounded memory (RSS at two sizes), progress within a second, SIGINT/SIGTERM.
prism_add_cli_test(cli_sweep_scale SCRIPT tests/cli/sweep_scale.sh LABELS io TIMEOUT 150)
