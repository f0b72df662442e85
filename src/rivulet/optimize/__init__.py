"""Graph optimisation passes and the pipeline that runs them before compilation."""
