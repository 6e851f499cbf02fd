# scripts/ tools checked against prism itself (the loader and plots: io.cmake's
# cli_sweep_scripts). Re-pricing a landscape for another cluster against `prism sweep`
# on that cluster (scripts/reprice_landscape.py; tolerances in tests/cli/reprice.sh).
prism_add_cli_test(cli_reprice SCRIPT tests/cli/reprice.sh LABELS io TIMEOUT 240)
# The fabric bandwidth behind a cluster file's measured NCCL figures under a ring's latency
# (scripts/derive_level_bandwidth.py; hand derivations in tests/cli/derive_levels.sh).
prism_add_cli_test(cli_derive_levels SCRIPT tests/cli/derive_levels.sh LABELS io TIMEOUT 60)
