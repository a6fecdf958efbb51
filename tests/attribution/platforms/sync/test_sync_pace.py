"""How long a sync rests between pages: SYNC_PAUSE_RATIO times the page's own time while some task waited for a
CPU at least SYNC_BUSY_CPU_SHARE of the time (Linux's pressure stall information), at once otherwise; always
where the kernel does not say."""

import pytest

from attribution.models import SyncRun
from attribution.platforms.sync import pace, shopify_orders
from attribution.platforms.sync.pace import Pace, cpu_stall_us
from attribution.platforms.sync.runner import sync_connection

from .conftest import at, shopify_order

PSI = (
    "some avg10=12.50 avg60=3.10 avg300=0.80 total=48213377\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
)


class Machine:
    """A clock and a PSI counter that move together: `run(seconds, waiting=share)`."""

    def __init__(self):
        self.now = 100.0
        self.stalled_us = 0

    def run(self, seconds, *, waiting):
        self.now += seconds
        self.stalled_us += int(seconds * waiting * 1e6)

    def pace(self, *, ratio=19.0, busy_share=0.10):
        return Pace(ratio=ratio, busy_share=busy_share, stall=lambda: self.stalled_us, clock=lambda: self.now)


def test_the_stall_counter_is_read_from_the_kernels_cpu_pressure(tmp_path):
    psi = tmp_path / "cpu"
    psi.write_text(PSI)

    assert cpu_stall_us(psi) == 48213377


@pytest.mark.parametrize("text", [None, "", "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"])
def test_a_machine_without_cpu_pressure_gives_no_stall_counter(tmp_path, text):
    psi = tmp_path / "cpu"
    if text is not None:
        psi.write_text(text)

    assert cpu_stall_us(psi) is None


def test_on_a_busy_machine_the_sync_rests_the_ratio_times_its_page():
    machine = Machine()
    paced = machine.pace()
    machine.run(0.5, waiting=0.35)  # checkouts keep both cores busy: a task waits 35 % of the time

    assert paced.rest(0.5) == pytest.approx(9.5)
    assert (paced.rests, paced.skipped) == (1, 0)


def test_on_a_quiet_machine_the_sync_reads_on_at_once():
    machine = Machine()
    paced = machine.pace()
    machine.run(0.5, waiting=0.02)  # the sync itself, alone at night

    assert paced.rest(0.5) == 0.0
    assert (paced.rests, paced.skipped) == (0, 1)


def test_each_rest_follows_the_machine_since_the_last_page():
    machine = Machine()
    paced = machine.pace(ratio=4.0)

    machine.run(1.0, waiting=0.0)
    quiet = paced.rest(1.0)
    machine.run(1.0, waiting=0.5)  # the morning's checkouts begin
    busy = paced.rest(1.0)
    machine.run(4.0, waiting=0.0)  # the rest, then the next page on a quiet machine again
    machine.run(1.0, waiting=0.0)
    quiet_again = paced.rest(1.0)

    assert (quiet, busy, quiet_again) == (0.0, 4.0, 0.0)


def test_where_the_kernel_does_not_say_the_sync_always_rests():
    paced = Pace(ratio=19.0, busy_share=0.10, stall=lambda: None, clock=lambda: 0.0)

    assert paced.rest(0.2) == pytest.approx(3.8)


def test_a_busy_share_of_zero_rests_after_every_page_and_a_ratio_of_zero_never():
    machine = Machine()
    always, never = machine.pace(busy_share=0), machine.pace(ratio=0)
    machine.run(1.0, waiting=0.0)

    assert always.rest(0.1) == pytest.approx(1.9)
    assert never.rest(0.1) == 0.0


@pytest.fixture
def seven_orders_in_three_pages(monkeypatch, shopify_shop, yesterday):
    monkeypatch.setattr(shopify_orders, "MAX_PAGE", 3)
    shopify_shop.orders.extend(
        shopify_order(n, placed_at=at(yesterday, n / 10), subtotal="20.00") for n in range(1, 8)
    )
    return shopify_shop


def test_a_sync_on_a_busy_machine_rests_after_each_page_but_the_last(
    monkeypatch, settings, seven_orders_in_three_pages, clock
):
    settings.SYNC_PAUSE_RATIO = 2.0
    stalled = iter(range(0, 10**12, 10**9))  # 1,000 s of waiting between two readings: busy whatever the page
    monkeypatch.setattr(pace, "cpu_stall_us", lambda: next(stalled))
    rests = []

    sync_connection(
        seven_orders_in_three_pages.connection.pk, trigger="command", sleep=clock.sleep, pause=rests.append
    )

    assert len(rests) == 2 and all(rest > 0 for rest in rests)
    assert SyncRun.objects.get().recovered == 7


def test_a_sync_on_a_quiet_machine_reads_its_pages_without_resting(
    monkeypatch, settings, seven_orders_in_three_pages, clock
):
    settings.SYNC_PAUSE_RATIO = 2.0
    monkeypatch.setattr(pace, "cpu_stall_us", lambda: 0)  # no task ever waited for a CPU
    rests = []

    sync_connection(
        seven_orders_in_three_pages.connection.pk, trigger="command", sleep=clock.sleep, pause=rests.append
    )

    assert rests == []
    assert SyncRun.objects.get().recovered == 7


def test_a_rest_never_reaches_past_the_runs_budget(monkeypatch, settings, seven_orders_in_three_pages, clock):
    # A starved page of several seconds times 49 would outlast the task runner's timeout, which stops a task mid-rest.
    settings.SYNC_PAUSE_RATIO = 1e9
    monkeypatch.setattr(pace, "cpu_stall_us", iter(range(0, 10**12, 10**9)).__next__)  # busy
    rests = []

    sync_connection(
        seven_orders_in_three_pages.connection.pk,
        trigger="command",
        sleep=clock.sleep,
        pause=rests.append,
        seconds=30.0,
    )

    assert rests and all(0 < rest <= 30.0 for rest in rests)
    assert SyncRun.objects.get().recovered == 7
