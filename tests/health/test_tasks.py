"""The background work on the task runner (django-q2, ORM broker): every job has a schedule visible in the
admin, each task calls the same function as its management command, and two schedulers at once queue a
due run once (PostgreSQL)."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_q.brokers import get_broker
from django_q.models import OrmQ, Schedule
from django_q.scheduler import scheduler

from health import tasks
from tests.attribution.concurrently import run_together

NAMES = [plan.name for plan in tasks.SCHEDULES]


@pytest.mark.django_db
def test_every_background_job_has_a_schedule_visible_in_the_admin(client, staff):
    funcs = dict(Schedule.objects.values_list("name", "func"))
    assert funcs == {plan.name: plan.func for plan in tasks.SCHEDULES}
    assert {f.rsplit(".", 1)[1] for f in funcs.values()} == {
        "evaluate_alerts",
        "deliver_notifications",
        "roll_up_outcomes",
        "replay_spool",
        "lock_commissions",
        "prune_outcomes",
        "make_outcome_partitions",
        "prune_growing_tables",
        "continue_reconciliations",
        "check_references",
        "refresh_review_figures",
        "refresh_fx_rates",
        "sync_shops",
    }
    client.force_login(staff)
    html = client.get("/admin/django_q/schedule/").content.decode()
    assert all(name in html for name in NAMES)


@pytest.mark.django_db
def test_an_operators_change_to_a_schedule_is_kept_and_a_deleted_one_comes_back():
    Schedule.objects.filter(name="Lock commissions").update(minutes=15)
    Schedule.objects.filter(name="Replay the spool").delete()

    assert tasks.ensure_schedules() == 1
    assert Schedule.objects.get(name="Lock commissions").minutes == 15
    assert Schedule.objects.filter(name="Replay the spool").exists()


@pytest.mark.django_db
def test_the_prune_runs_daily_at_half_past_three_utc():
    prune = Schedule.objects.get(name="Prune the outcome log (400 days)")
    assert prune.schedule_type == Schedule.DAILY
    assert (prune.next_run.hour, prune.next_run.minute) == (3, 30)


@pytest.mark.django_db
def test_each_task_runs_the_function_of_its_command_and_says_what_it_did(brand):
    assert tasks.evaluate_alerts().startswith("Evaluated 1 brands: 0 incidents opened")
    assert tasks.deliver_notifications() == "Attempted 0 deliveries: 0 delivered, 0 to retry, 0 failed."
    assert tasks.roll_up_outcomes().startswith("Rolled up 0 outcome events")
    assert (
        tasks.replay_spool() == "Replayed 0; 0 already replayed, 0 still failing, 0 dead-lettered; 0 waiting."
    )
    assert tasks.lock_commissions() == "Locked 0 commissions onto 0 statements."
    assert tasks.prune_outcomes() == (
        "Deleted 0 outcome events (0 months dropped whole); 0 hourly counts; 0 idle throttle counters."
    )
    assert tasks.prune_growing_tables().startswith("Pruned 0 resolved incidents")
    assert tasks.make_outcome_partitions().startswith("Made 0 outcome log partitions")
    assert tasks.continue_reconciliations() == (
        "Carried on 0 reconciliation applies: 0 orders created, 0 commissions changed."
    )
    assert tasks.refresh_review_figures() == "Refreshed the review figures of 1 brands: 0 flags stand."


@pytest.mark.django_db
def test_operators_can_evaluate_by_hand(brand, capsys):
    call_command("evaluate_alerts")

    assert capsys.readouterr().out.startswith("Evaluated 1 brands")


@pytest.mark.django_db(transaction=True)
def test_two_schedulers_at_once_queue_each_due_run_once(postgres_only):
    tasks.ensure_schedules()
    Schedule.objects.update(next_run=timezone.now() - timedelta(seconds=5))
    broker = get_broker()

    run_together(lambda: scheduler(broker=broker), lambda: scheduler(broker=broker))

    assert OrmQ.objects.count() == len(tasks.SCHEDULES)
