"""What the claims crew does differently from CrewAI's defaults, and why: one module each.

Each module's docstring names the CrewAI versions it was checked against (1.15.x) and the
upstream issue it works around, or the CrewAI behaviour where no issue exists.
tests/test_crewai_workarounds.py holds a canary per module: it fails once the installed CrewAI
no longer behaves that way, and says which module to drop or revisit.

- memo_cache: CrewBase's process-wide memo cache, keyed by id(), outlives the crew
  (crewAI #7338; fix proposed in #7341).
- config_files: CrewBase looks for its YAML beside the crew's module and runs with no agents
  when a file is missing.
- yaml_cache: CrewBase parses agents.yaml and tasks.yaml again for every crew object.
- task_schema: `output_pydantic` written in YAML is dropped; the schema is set in Python.
- strict_converter: CrewAI's converter asks a model to fix an answer that does not parse.
- agent_executor: AgentExecutor declares a throw-away Flow state class per executor, and
  builds its flow definition on first use, unguarded between threads.
- file_store: CrewAI looks its (empty) file store up in a new thread and event loop before
  each model call and after each task and crew.
- listener_index: CrewAI's flow engine checks every listener's condition after every step of
  an agent executor; the executor checks those that name the step only.
- steps_in_place: CrewAI's flow engine hands each plain step of an agent executor to a pool
  thread while the executor's own loop waits; the executor runs them on the loop's thread.
- verbatim_answers: a provider's client validates native structured output itself, and loses
  the answer it refuses.
- kickoff_log: every crew writes its task outputs to one SQLite file under a file lock.
- generic_models: pydantic's generic-model cache is per context, and CrewAI copies contexts.
- model_descriptions: CrewAI rewrites an answer's or a tool's JSON schema into its prompt form
  afresh every time a prompt or a tool call needs it.
- sdk_models: openai's and anthropic's response classes build themselves on first use, which
  is not safe from two threads at once (their `DEFER_PYDANTIC_BUILD`, not CrewAI's doing).
"""
