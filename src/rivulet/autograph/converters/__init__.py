"""One converter per Python construct. PIPELINE is the order they run in: jumps (break, continue, return)
become flags and guards first, so control_flow only meets if/while/for; expression rewrites run before
control_flow so that the generated state functions stay free of them."""
from . import (break_statements, call_trees, conditional_expressions, continue_statements, control_flow,
               directives, functions, logical_expressions, return_statements, variables)

PIPELINE = [directives, break_statements, continue_statements, return_statements, call_trees,
            conditional_expressions, logical_expressions, variables, control_flow, functions]
