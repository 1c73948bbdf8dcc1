"""The evaluation benchmarks' definitions, as a module Ray's worker processes can import: a
prompt and two named offline models whose every step takes about 50 ms."""

import threadlab as tl

STEP_OPTIONS = {"delay": 0.025, "chunk_size": 100_000}
"""Two streamed chunks (the answer, then the step's end), 25 ms before each."""

tl.define_model("step-a", provider="offline", model="offline", options=STEP_OPTIONS)
tl.define_model("step-b", provider="offline", model="offline", options=STEP_OPTIONS)
tl.define_prompt("answerer", prompt="Answer the question.", model="step-a")
