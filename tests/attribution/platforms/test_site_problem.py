"""What the setup page says of a WooCommerce site's address it will not call (issue 55, finding 6): a plain-http
site is told to use https; an https address the outbound guard refuses (a private, link-local or odd form) is
told why, not that it lacks https."""

import pytest

from attribution.platforms.connect.woocommerce_keys import site_problem


@pytest.mark.parametrize(
    ("site", "says"),
    [
        ("https://shop.example", ""),
        ("http://shop.example", "must be served over https"),
        ("https://0177.0.0.1", "not a host name nor an address in its usual form"),
        ("https://[2002:a9fe:a9fe::]", "an address the service does not call"),
        ("https://169.254.169.254", "an address the service does not call"),
    ],
)
def test_an_address_is_refused_for_what_is_wrong_with_it(site, says):
    problem = site_problem(site)

    assert (says in problem) if says else problem == ""
    assert ("https" in problem) == bool(says)
