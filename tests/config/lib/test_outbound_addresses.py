"""Round six, finding 6 (docs/threat-model.md): the one outbound client's guard, as a table of every address form
tried against it. Each is refused cleanly (config.lib.outbound.Refused) before anything is sent; a name is checked
against every address it resolves to. And `getaddrinfo` has one home in the production packages."""

import socket
import subprocess
from pathlib import Path

import pytest

from config.lib import outbound
from config.lib.outbound.addresses import resolve

POLICY = outbound.Policy(deadline=5.0, max_bytes=1024)

REFUSED_AS_WRITTEN = [
    "https://127.0.0.1/",
    "http://127.0.0.1:9100/",
    "https://169.254.169.254/latest/meta-data/",  # the cloud's metadata address
    "https://10.0.0.1/",
    "https://10.255.1.2:8443/",
    "https://172.16.0.1/",
    "https://192.168.1.1/",
    "https://100.64.0.1/",  # carrier-grade NAT
    "https://0.0.0.0/",
    "https://224.0.0.1/",
    "https://[::1]/",
    "https://[::]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:a9fe:a9fe]/",  # IPv4-mapped 169.254.169.254
    "https://[::ffff:10.0.0.1]/",
    "https://[2002:a9fe:a9fe::]/",  # 6to4 of 169.254.169.254
    "https://[2002:a00:1::1]/",  # 6to4 of 10.0.0.1
    "https://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254
    "https://[64:ff9b::7f00:1]/",  # NAT64 of 127.0.0.1
    "https://[64:ff9b:1::a00:7]/",  # NAT64 local use: where its IPv4 part sits is unknowable
    "https://[::a9fe:a9fe]/",  # IPv4-compatible 169.254.169.254
    "https://[::127.0.0.1]/",
    "https://[fe80::1]/",  # link-local
    "https://[fc00::1]/",  # unique local
    "https://[ff02::1]/",  # multicast
    "https://0177.0.0.1/",  # octal
    "https://0x7f.0.0.1/",  # hex
    "https://0x7f000001/",  # one hex integer
    "https://2130706433/",  # one decimal integer
    "https://017700000001/",  # one octal integer
    "https://127.1/",  # the short form
    "https://0251.0376.0251.0376/",  # 169.254.169.254 in octal
    "https://user:pass@example.com/",
    "ftp://example.com/",
    "file:///etc/passwd",
    "https:///nohost",
    "https://example.com:0/",
    "http://example.com/",  # plain http to a host not listed
]


@pytest.mark.parametrize("url", REFUSED_AS_WRITTEN)
def test_each_form_tried_is_refused_cleanly_before_anything_is_sent(url):
    with pytest.raises(outbound.Refused):
        outbound.request("GET", url, policy=POLICY)


@pytest.mark.parametrize(
    ("name", "addresses"),
    [
        ("localhost", ["127.0.0.1"]),
        ("metadata.example", ["169.254.169.254"]),
        ("intranet.example", ["10.0.0.7"]),
        ("v6.example", ["::1"]),
        ("mapped.example", ["::ffff:10.0.0.7"]),
        ("sixtofour.example", ["2002:a9fe:a9fe::1"]),
        ("nat64.example", ["64:ff9b::a9fe:a9fe"]),
        ("compatible.example", ["::a9fe:a9fe"]),
        ("round-robin.example", ["93.184.215.14", "10.0.0.7"]),  # one bad address refuses the name
    ],
)
def test_a_name_that_resolves_to_an_address_not_called_is_refused(monkeypatch, name, addresses):
    monkeypatch.setattr(socket, "getaddrinfo", _resolver(addresses))

    with pytest.raises(outbound.Refused, match="resolves to an address the service does not call"):
        resolve(name, 443)


def test_a_public_name_is_connected_to_at_the_address_checked(monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", _resolver(["93.184.215.14", "2606:2800:21f:cb07::1"]))

    assert resolve("shop.example", 443) == "93.184.215.14"


@pytest.mark.parametrize(
    "literal", ["64:ff9b::808:808", "2002:808:808::1", "::ffff:8.8.8.8", "2606:4700::1111"]
)
def test_an_ipv6_form_carrying_a_public_address_passes(literal):
    outbound.check_url(f"https://[{literal}]/", POLICY)


def test_a_name_that_resolves_to_an_internal_address_is_refused_through_the_real_transport(monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", _resolver(["169.254.169.254"]))

    with pytest.raises(outbound.Refused, match="169.254.169.254"):
        outbound.request("GET", "https://rebind.example/", policy=POLICY)


def test_plain_http_and_a_local_address_only_at_a_listed_host_and_port():
    listed = outbound.Policy(deadline=5.0, max_bytes=1024, plain_http=frozenset({("127.0.0.1", 9100)}))

    assert outbound.check_url("http://127.0.0.1:9100/shop", listed) == ("127.0.0.1", 9100)
    for other_port in ("http://127.0.0.1:5432/", "https://127.0.0.1:6379/", "http://127.0.0.1/"):
        with pytest.raises(outbound.Refused):
            outbound.check_url(other_port, listed)


def test_a_listed_pair_may_resolve_to_loopback_or_a_private_network_never_link_local(monkeypatch):
    monkeypatch.setattr(socket, "getaddrinfo", _resolver(["10.0.0.9"]))
    assert resolve("standin.internal", 9100, private=True) == "10.0.0.9"
    monkeypatch.setattr(socket, "getaddrinfo", _resolver(["169.254.169.254"]))
    with pytest.raises(outbound.Refused):
        resolve("standin.internal", 9100, private=True)


def test_getaddrinfo_has_one_home_in_the_production_packages():
    root = Path(__file__).resolve().parents[3]
    found = subprocess.run(
        ["grep", "-rln", "--include=*.py", "getaddrinfo", "attribution", "brands", "health", "config"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.split()

    assert found == ["config/lib/outbound/addresses.py"]


def _resolver(addresses):
    def getaddrinfo(host, port, *args, **kwargs):
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
            for a in addresses
        ]

    return getaddrinfo
