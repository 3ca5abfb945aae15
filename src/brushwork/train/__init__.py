"""Train: the TRL side (GRPO reward function, environment_factory class) and the recipe."""
