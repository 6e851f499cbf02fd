# Model IR features as the cost model compiles them (sliding windows, parameter splits of
# every zoo model); the IR itself is tested by test_model_zoo and test_hf (core.cmake).
prism_add_unit_test(test_model_costs
  SOURCES unit/test_model_costs.c unit/test_cost_support.c LABELS cost)
