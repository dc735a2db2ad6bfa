"""What a person does to an escalation (decide on a clause, propose, confirm, return, assign),
as plain functions over the store and the desk's rules. desk/ holds the pure rules; this
applies them with the store. The command line and the review page both call these: cli/
parses and prints, review/ renders, and neither holds the rule (docs/review-desk.md).

Imported by its modules (deciding.actions, deciding.clauses, deciding.payable), so a command
loads only what it uses."""
