# Cost-model tests (cost/): hand-derived formulas, kernels against the scalar reference,
# fast candidate path against every stage, explain/knobs/validate CLI.
prism_add_unit_test(test_cost_formulas
  SOURCES unit/test_cost_formulas.c unit/test_cost_support.c LABELS cost)
prism_add_cli_test(cli_explain SCRIPT tests/cli/explain.sh LABELS cost)
