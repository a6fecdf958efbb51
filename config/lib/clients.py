"""The client's address as every limit sees it: the API's throttles and the sign-in lockout alike."""

from django.conf import settings


def client_address(request) -> str:
    """The address of the client behind the NUM_PROXIES proxies in front of the service.

    Each proxy appends the address it received the request from to X-Forwarded-For, so the entry
    NUM_PROXIES from the end is the one the first proxy saw; whatever the client wrote before it is
    not trusted. With NUM_PROXIES = 0, only the socket address counts. (Django REST framework's rule.)
    """
    remote_addr = request.META.get("REMOTE_ADDR", "")
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    proxies = settings.NUM_PROXIES
    if not proxies or not forwarded:
        return remote_addr
    addresses = forwarded.split(",")
    return addresses[-min(proxies, len(addresses))].strip()
