"""Side-by-side benchmarks; `python -m benchmarks` runs them all."""
