"""The machinery that executes runs: the runner, the run store, executors, the model-output cache, threads."""
