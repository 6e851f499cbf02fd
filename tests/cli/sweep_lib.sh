# sweep_lib.sh - helpers shared by the sweep CLI tests (sourced after tests/support/cli.sh).

# The working folder survives between runs: start from an empty one.
rm -rf -- ./*.h5 ./*.h5.partial ./*.h5.partial.spill ./*.lock
