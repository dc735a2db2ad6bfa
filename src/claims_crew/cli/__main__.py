"""`python -m claims_crew.cli ...`: the command line, as the `claims-crew` script runs it (for
processes started with this interpreter, such as `serve --work N`'s workers)."""

from claims_crew.cli import main

main(prog_name="claims-crew")
