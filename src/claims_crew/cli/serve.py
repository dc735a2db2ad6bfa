"""`claims-crew serve`: the review page, for one reviewer at their desk or a team behind a proxy.

On its own it listens on 127.0.0.1. For a team it runs behind a reverse proxy that ends TLS
(docs/scale-out.md, "The review page for a team"): `--allowed-host` names the public host name
the proxy passes on, `--https` marks the cookies Secure, `--trusted-proxy` believes the proxy's
X-Forwarded-For (so sign-in throttling sees each client, not the proxy) and X-Forwarded-Proto,
and `--workers` serves from several processes. Every process opens the store every command opens
(CLAIMS_CREW_DATABASE_URL, else the SQLite file), so they share one queue and one set of
sessions; a team's page is usually on PostgreSQL.

The server also sends the webhooks (webhooks/loop.py): one sender thread in this process,
whatever `--workers` says, stopped with the server. `--work N` runs N `claims-crew work` queue
workers beside it (run/processes.py), which review what `ingest` and the API queue, and are
stopped (SIGTERM, then waited for while they finish the claims in hand) when the server stops;
each writes its output to CLAIMS_CREW_HOME/serve/work-N.log.
"""

from __future__ import annotations

import ipaddress
import signal

import click

from claims_crew.cli._output import reports_errors


def _addresses(
    _ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]
) -> tuple[str, ...]:
    """Each proxy address or network checked here: uvicorn would take a typo for a name."""
    for value in values:
        try:
            if "/" in value:
                ipaddress.ip_network(value, strict=False)
            else:
                ipaddress.ip_address(value)
        except ValueError as exc:
            raise click.BadParameter(f"{value!r} is not an IP address or network") from exc
    return values


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    help="Another Host header to accept (a name the page is reached by); repeatable.",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Processes serving the page; they share the store, its sessions included.",
)
@click.option(
    "--work",
    default=0,
    show_default=True,
    type=click.IntRange(0, 64),
    help="Queue workers (`claims-crew work`) to run beside the server, stopped with it.",
)
@click.option(
    "--https",
    "https",
    is_flag=True,
    help="The page is reached over HTTPS (TLS at a reverse proxy): cookies are marked Secure.",
)
@click.option(
    "--trusted-proxy",
    "trusted_proxies",
    multiple=True,
    callback=_addresses,
    metavar="ADDRESS",
    help="A reverse proxy (IP address or network) whose X-Forwarded-For and X-Forwarded-Proto "
    "are believed; repeatable. Without it those headers are ignored.",
)
@reports_errors
def serve(
    host: str,
    port: int,
    allowed_hosts: tuple[str, ...],
    workers: int,
    work: int,
    https: bool,
    trusted_proxies: tuple[str, ...],
) -> None:
    """Serve the review queue as a web page (sign in with a reviewer token)."""
    import uvicorn

    from claims_crew import settings
    from claims_crew.review.serving import (
        APP_FACTORY,
        ServeSettings,
        export_settings,
        http_protocol,
    )
    from claims_crew.review.web import default_hosts
    from claims_crew.run.processes import start_queue_workers, stop_processes
    from claims_crew.store import Store
    from claims_crew.webhooks.loop import start_sender

    store = Store()  # opened (and migrated) once here, before the processes start
    export_settings(
        ServeSettings(
            allowed_hosts=[*default_hosts(host, port), *allowed_hosts], secure_cookies=https
        )
    )
    processes = f", {workers} processes" if workers > 1 else ""
    click.echo(
        f"Review page on http://{host}:{port}/ over {store.where}{processes}  (Ctrl-C to stop)"
    )
    # Started before the page: a webhooks.yaml naming an unset secret stops serve here.
    sender = start_sender(store)
    logs = settings.home() / "serve"
    queue_workers = start_queue_workers(work, store, logs) if work else []
    if work:
        click.echo(f"{work} queue worker(s) reviewing what is queued; their output: {logs}")
    # uvicorn stops on SIGTERM, then raises it again under the handler it found: the default
    # one would end this process there, before the `finally` below stops the sender and the
    # workers (left running, orphaned). Python's Ctrl-C handler raises KeyboardInterrupt
    # instead, so a service manager's SIGTERM ends serve as Ctrl-C does.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        uvicorn.run(
            APP_FACTORY,
            factory=True,
            http=http_protocol(),
            host=host,
            port=port,
            workers=workers,
            proxy_headers=bool(trusted_proxies),
            forwarded_allow_ips=list(trusted_proxies),
            log_level="warning",
        )
    finally:
        sender.stop()
        stop_processes(queue_workers)
        store.close()
