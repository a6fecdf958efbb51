"""Whether a shopper's address is at a throwaway-address domain (the disposable_email review rule, docs/review.md),
decided on the address before it is hashed (the address is never kept, docs/decisions.md "Known shoppers"),
and carried with the hash; the kept list is the disposable-email-domains package."""

from disposable_email_domains import blocklist

from .hosts import hash_email


class EmailHash(str):
    """The hash of a shopper's address (brands.hosts.hash_email) that also knows whether the address was at
    a throwaway domain: it is the hash wherever the hash is read, and the verdict is all that is left of
    the address's domain."""

    disposable: bool

    def __new__(cls, digest: str, disposable: bool = False):
        value = super().__new__(cls, digest)
        value.disposable = disposable
        return value

    def __reduce__(self):  # copies and pickles keep the verdict
        return (EmailHash, (str(self), self.disposable))


def is_disposable(address: str) -> bool:
    """The address's domain (or a parent of it) is on the kept list of throwaway-address domains."""
    domain = address.strip().lower().rpartition("@")[2].rstrip(".")
    if not domain:
        return False
    labels = domain.split(".")
    return any(".".join(labels[index:]) in blocklist for index in range(len(labels) - 1))


def verdict(value) -> bool:
    """The verdict an email hash carries; False for a hash that came without one (an address sent already
    hashed, as a replayed or spooled body writes it)."""
    return bool(getattr(value, "disposable", False))


def hash_with_verdict(value, address: str) -> EmailHash:
    """The hash of `address` (brands.hosts.hash_email) with its verdict; a `value` that already carries one (a
    platform's address, judged by its receiver before it hashed it) keeps it."""
    disposable = value.disposable if isinstance(value, EmailHash) else is_disposable(address)
    return EmailHash(hash_email(address), disposable=disposable)
