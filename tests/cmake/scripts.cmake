# scripts/ tools checked against prism itself (the loader and plots: io.cmake's
# cli_sweep_scripts). Re-pricing a landscape for another cluster against `prism sweep`
# on that cluster (scripts/reprice_landscape.py; tolerances in tests/cli/reprice.sh).
prism_add_cli_test(cli_reprice SCRIPT tests/cli/reprice.sh LABELS io TIMEOUT 240)
