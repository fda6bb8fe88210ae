"""Live trigger runs: drive the runtime's own CLI on each prompt and read, from its own event
stream, which skill it used (issue #27). `spec` (the profile's `[live_trigger]` data), `reader`
(an event stream -> an outcome), `workspace` (a throwaway project holding the skill set), `plan`
(calls, tokens and cost before anything runs), `runner` (the subprocesses), `results` (rates,
precision/recall, the held-out split, saved results and their comparison)."""
