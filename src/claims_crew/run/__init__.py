"""Reviewing claims: from a claim file to a stored decision.

- ingest.py: claim files read once, checked, kept whole in the store and queued;
- routine.py: the one claim routine, run by `claims-crew run` and by every worker: lease,
  decided already?, review within the deadline, record, finish, release;
- crew_review.py: one claim's review: the crew, the resolver, then the cascade's levels
  (levels/); what a provider's error means is llms/providers/errors.py's;
- batch.py: a run's own claims through the routine, several at a time in one process;
- worker.py and processes.py: queue workers (`claims-crew work`), and a run's worker processes;
  collector.py: what the garbage collector visits: not what a process loaded before its first
  claim, and nothing at its exit;
- settings.py, limits.py, deadline.py, stages.py: what a run shares, how long things may take,
  the cutoff at a claim's deadline, and the stage clock;
- shadows.py: decision stores beside production for trying a config;
- appeal.py (a decided claim reopened with new evidence) and revalidate.py (decisions that no
  longer stand as made, which stale.py finds) decide a claim again through the routine's
  decide_again: the same lease and review.
"""
