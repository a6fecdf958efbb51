"""Repeated failed sign-ins lock that username out from that address (django-axes)."""

import pytest

from tests.factories import MembershipFactory, UserFactory


@pytest.fixture(autouse=True)
def lockout_on(settings):
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 3


@pytest.mark.parametrize("login_path", ["/accounts/login/", "/admin/login/"])
def test_the_third_failed_attempt_locks_the_user_out_even_with_the_right_password(client, brand, login_path):
    user = MembershipFactory(brand=brand, user=UserFactory(username="alice", is_staff=True)).user
    for _ in range(3):
        client.post(login_path, {"username": "alice", "password": "wrong"}, REMOTE_ADDR="198.51.100.7")

    response = client.post(
        login_path, {"username": "alice", "password": "pw-for-tests"}, REMOTE_ADDR="198.51.100.7"
    )

    assert response.status_code == 429
    assert b"paused" in response.content
    assert "_auth_user_id" not in client.session
    assert user.is_active


def test_a_lockout_from_one_address_does_not_lock_the_user_out_elsewhere(client, brand):
    MembershipFactory(brand=brand, user=UserFactory(username="alice"))
    for _ in range(3):
        client.post(
            "/accounts/login/", {"username": "alice", "password": "wrong"}, REMOTE_ADDR="198.51.100.7"
        )

    response = client.post(
        "/accounts/login/", {"username": "alice", "password": "pw-for-tests"}, REMOTE_ADDR="192.0.2.10"
    )

    assert response.status_code == 302
    assert "_auth_user_id" in client.session


@pytest.fixture
def behind_the_load_balancer(settings):
    """The documented production setup: one TLS-terminating load balancer (10.0.0.1) appends the address
    it received the request from to X-Forwarded-For."""
    settings.NUM_PROXIES = 1

    def through(client_address: str, forged: str = "") -> dict:
        forwarded = f"{forged}, {client_address}" if forged else client_address
        return {"REMOTE_ADDR": "10.0.0.1", "HTTP_X_FORWARDED_FOR": forwarded}

    return through


def _attacker_forging_alices_address_fails_three_times(client, behind_the_load_balancer):
    # Forging the user's own address changes nothing: the balancer appends the real one.
    for _ in range(3):
        client.post(
            "/accounts/login/",
            {"username": "alice", "password": "wrong"},
            **behind_the_load_balancer("203.0.113.66", forged="198.51.100.7"),
        )


def test_failures_from_an_attacker_behind_the_load_balancer_do_not_lock_the_real_user_out(
    client, brand, behind_the_load_balancer
):
    MembershipFactory(brand=brand, user=UserFactory(username="alice"))
    _attacker_forging_alices_address_fails_three_times(client, behind_the_load_balancer)

    response = client.post(
        "/accounts/login/",
        {"username": "alice", "password": "pw-for-tests"},
        **behind_the_load_balancer("198.51.100.7"),
    )

    assert response.status_code == 302
    assert "_auth_user_id" in client.session


def test_behind_the_load_balancer_the_attackers_own_address_is_locked(
    client, brand, behind_the_load_balancer
):
    MembershipFactory(brand=brand, user=UserFactory(username="alice"))
    _attacker_forging_alices_address_fails_three_times(client, behind_the_load_balancer)

    response = client.post(
        "/accounts/login/",
        {"username": "alice", "password": "pw-for-tests"},
        **behind_the_load_balancer("203.0.113.66"),
    )

    assert response.status_code == 429
    assert "_auth_user_id" not in client.session
