"""The runtime: definitions, registry, threads, the step loop, events, hooks, env and files."""
