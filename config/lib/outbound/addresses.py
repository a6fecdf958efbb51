"""Which addresses an outbound call may reach, and the one place a host name is resolved for one.

A brand chooses its shop's site and its alert webhook's URL, so the service must not become its way into internal
addresses. Only public unicast addresses are called. An IPv6 address that carries an IPv4 address inside (mapped
`::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`, Teredo) is judged by the IPv4
address it carries, which a gateway may route to; NAT64's local-use prefix is refused (where its IPv4 part sits is
the network's choice). A host written as an odd form of an IPv4 address (`0177.0.0.1`, `0x7f.1`, `2130706433`)
is refused as written: resolvers read those forms differently, so none is trusted.
"""

import ipaddress
import re
import socket

from .errors import Refused, Unreachable

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64_WELL_KNOWN = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL_USE = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
# The WHATWG URL rule: a host whose last label is a number is an IPv4 address (in decimal, octal or hex).
_NUMBER = re.compile(r"^(0[xX][0-9a-fA-F]*|[0-9]+)$")


def literal(host: str) -> Address | None:
    """The IP address `host` is written as (brackets and an IPv6 zone left out), or None for a name."""
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return None


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]  # the client's address; the server's is public by construction
    if address in _NAT64_WELL_KNOWN or (address in _IPV4_COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_allowed(address: Address, *, loopback: bool = False, private: bool = False) -> bool:
    """A public unicast address; with `loopback` this machine's too, with `private` a private network's too
    (never link-local: the cloud's metadata address lives there)."""
    if address.version == 6:
        if address in _NAT64_LOCAL_USE:
            return False
        embedded = embedded_ipv4(address)
        if embedded is not None:
            address = embedded
    if address.is_loopback:
        return loopback or private
    if address.is_link_local or address.is_multicast or address.is_unspecified or address.is_reserved:
        return False
    if address.is_private:
        return private
    return address.is_global


def host_problem(host: str | None) -> str | None:
    """Why `host` cannot be called as written (missing, an odd form of an IPv4 address), or None."""
    if not host:
        return "the URL has no host"
    if literal(host) is not None:
        return None
    last = host.rstrip(".").rsplit(".", 1)[-1]
    if _NUMBER.match(last):
        return f"{host[:100]} is not a host name nor an address in its usual form"
    return None


def resolve(host: str, port: int, *, loopback: bool = False, private: bool = False) -> str:
    """The address to connect to for `host`: every address it resolves to is checked (one bad one refuses the
    host, so a round-robin answer cannot slip one in), and the caller connects to the checked one, so a DNS
    answer that changes in between cannot point it elsewhere. Raises Refused or Unreachable."""
    problem = host_problem(host)
    if problem:
        raise Refused(problem)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise Unreachable(f"cannot resolve {host[:100]}: {getattr(exc, 'strerror', None) or exc}") from exc
    addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]
    refused = [str(a) for a in addresses if not address_allowed(a, loopback=loopback, private=private)]
    if not addresses or refused:
        raise Refused(f"{host[:100]} resolves to an address the service does not call ({', '.join(refused)})")
    return str(addresses[0])
