"""Where a webhook may be sent: a public address, unless its endpoint says `allow_private: true`.

A webhook URL is chosen by whoever edits config/webhooks.yaml, and the sender POSTs there from
inside the network `serve` runs in. Pointed at 169.254.169.254 (a cloud's metadata service),
at the machine itself or at a private address, it would make `serve` talk to services that
trust the network rather than the caller. So an address that is not on the public internet is
refused: unspecified, loopback, link-local, multicast, private (RFC 1918, fc00::/7) and the
other blocks that are not global (shared 100.64.0.0/10, documentation, reserved). An IPv6
address carrying an IPv4 one (::ffff:a.b.c.d, NAT64's 64:ff9b::/96) is judged by the IPv4 one.

The check runs twice: on the URL in the config when its host is an address (`config check`
reports it at its line), and on every try, on every address its host name resolves to and on
the address the try then connects to (sending.py), so a name that points at 127.0.0.1, or
starts to between the lookup and the connection, does not slip through.
"""

from __future__ import annotations

import ipaddress
import socket
import threading

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def address(text: str) -> IPAddress | None:
    """`text` as an IP address (brackets and an IPv6 zone dropped); None when it is a name."""
    bare = text.strip("[]").partition("%")[0]
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        return None


def _embedded(ip: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 one carries, if it carries one, else the address itself."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip in _NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def refusal(ip: IPAddress) -> str | None:
    """Why a webhook may not be sent to `ip` without allow_private ("a loopback address", for
    the message), or None for a public address."""
    ip = _embedded(ip)
    # The order names the narrowest kind: loopback and link-local are also "private" to Python.
    kinds = (
        ("an unspecified address", ip.is_unspecified),
        ("a loopback address", ip.is_loopback),
        ("a link-local address", ip.is_link_local),
        ("a multicast address", ip.is_multicast),
        ("a private address", ip.is_private),
        ("not a public address", not ip.is_global),
    )
    return next((kind for kind, found in kinds if found), None)


def refused_host(host: str) -> str | None:
    """The refusal of a URL's host when it is an address (what the config can check without a
    lookup): "127.0.0.1 is a loopback address"; None for a public address or a host name."""
    ip = address(host)
    why = None if ip is None else refusal(ip)
    return None if why is None else f"{ip} is {why}"


def resolve(host: str, port: int, timeout_s: float) -> list[IPAddress]:
    """Every address `host` resolves to, looked up within `timeout_s`: TimeoutError past it,
    OSError (socket.gaierror) when the name does not resolve. getaddrinfo cannot be cancelled,
    so it runs in a daemon thread left to finish on its own when it is late."""
    literal = address(host)
    if literal is not None:
        return [literal]
    found: list[list[IPAddress] | OSError] = []

    def look_up() -> None:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            found.append([ip for info in infos if (ip := address(str(info[4][0])))])
        except OSError as exc:
            found.append(exc)

    thread = threading.Thread(target=look_up, name="webhook-lookup", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if not found:
        raise TimeoutError(f"{host} was not resolved within {timeout_s:g} s")
    result = found[0]
    if isinstance(result, OSError):
        raise result
    return result
