"""The rates kept here (docs/currencies.md, "Rates"): the ECB's files read, the bundled history loaded with no
network, the daily refresh from FX_RATES_URL (the outbound double here) or FX_RATES_FILE, and a stored rate never
changed."""

import io
import zipfile
from datetime import date
from decimal import Decimal

import httpx
import pytest
from django.core.management import CommandError, call_command

from attribution.fx import ecb, loading
from attribution.models import FxRate

HISTORY_CSV = (
    "Date,USD,JPY,BGN,GBP,\n2026-11-03,1.1500,177.10,N/A,0.8400,\n2026-11-02,1.1400,176.90,N/A,0.8390,\n"
)
NINETY_DAYS_XML = b"""<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
  <gesmes:subject>Reference rates</gesmes:subject>
  <Cube>
    <Cube time="2026-11-03"><Cube currency="USD" rate="1.1500"/><Cube currency="JPY" rate="177.10"/></Cube>
    <Cube time="2026-11-02"><Cube currency="USD" rate="1.1400"/></Cube>
  </Cube>
</gesmes:Envelope>"""


def zipped(text: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("eurofxref-hist.csv", text)
    return buffer.getvalue()


def test_it_reads_the_history_zip_skipping_what_the_ecb_did_not_publish():
    rates = ecb.read(zipped(HISTORY_CSV))

    assert ecb.Rate(date(2026, 11, 3), "USD", Decimal("1.1500")) in rates
    assert not [r for r in rates if r.currency == "BGN"]  # N/A: Bulgaria joined the euro
    assert len(rates) == 6


def test_it_reads_the_90_day_xml_file():
    rates = ecb.read(NINETY_DAYS_XML)

    assert {(r.day, r.currency, r.per_euro) for r in rates} == {
        (date(2026, 11, 3), "USD", Decimal("1.1500")),
        (date(2026, 11, 3), "JPY", Decimal("177.10")),
        (date(2026, 11, 2), "USD", Decimal("1.1400")),
    }


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"<html>Service unavailable</html", "not readable XML"),
        (b"Day,USD\n2026-11-03,1.1\n", "Date column"),
        (b"Date,USD,\n2026-11-03,abc,\n", "no rate in the file: USD on 2026-11-03: 'abc' is not a number"),
        (b"Date,USD,\n2026-11-03,-1,\n", "no rate in the file: .* is not a rate"),
        (b"PK\x03\x04broken", "not a readable zip"),
        (b"Date,USD,\n", "no rate"),
    ],
)
def test_a_file_that_is_not_the_ecbs_is_refused_whole(data, says):
    with pytest.raises(ecb.UnreadableRates, match=says):
        ecb.read(data)


@pytest.mark.django_db
def test_the_bundled_history_loads_with_no_network_and_twice_adds_nothing():
    FxRate.objects.all().delete()

    first = loading.load_bundled(since=date(2026, 10, 1))
    again = loading.load_bundled(since=date(2026, 10, 1))

    assert first.added == first.read > 0 and again.added == 0
    assert first.newest >= date(2026, 10, 30)
    friday = FxRate.objects.get(day=date(2026, 10, 30), currency="USD")
    assert (friday.per_euro, friday.source) == (Decimal("1.1172"), "ECB")


@pytest.mark.django_db
def test_the_refresh_downloads_the_url_and_never_changes_a_stored_rate(settings, outbound_double):
    settings.FX_RATES_FILE = ""
    settings.FX_RATES_URL = "https://rates.example/eurofxref-hist.zip"
    FxRate.objects.create(day=date(2026, 11, 2), currency="USD", per_euro=Decimal("1.1399"))
    asked = []

    def ecb_stand_in(request):
        asked.append(str(request.url))
        return httpx.Response(200, content=zipped(HISTORY_CSV))

    outbound_double.serve("rates.example", ecb_stand_in)

    loaded = loading.refresh()

    assert asked == ["https://rates.example/eurofxref-hist.zip"]
    assert (loaded.read, loaded.added, loaded.newest) == (6, 5, date(2026, 11, 3))
    assert FxRate.objects.get(day=date(2026, 11, 2), currency="USD").per_euro == Decimal("1.1399")


@pytest.mark.django_db
def test_a_failed_download_is_tried_three_times_and_stores_nothing(settings, outbound_double):
    settings.FX_RATES_FILE = ""
    settings.FX_RATES_URL = "https://rates.example/eurofxref-hist.zip"
    outbound_double.serve("rates.example", lambda request: httpx.Response(503))
    before = FxRate.objects.count()

    with pytest.raises(ecb.DownloadFailed, match="answered 503"):
        loading.refresh()

    assert FxRate.objects.count() == before
    # Waited on the double's clock, never for real.
    assert len(outbound_double.calls) == 3 and outbound_double.waits == [1.0, 2.0]


@pytest.mark.django_db
def test_the_command_reads_fx_rates_file_and_says_what_it_did(settings, tmp_path):
    path = tmp_path / "eurofxref-hist-90d.xml"
    path.write_bytes(NINETY_DAYS_XML)
    settings.FX_RATES_FILE = str(path)
    FxRate.objects.filter(day__gte=date(2026, 11, 2)).delete()
    out = io.StringIO()

    call_command("load_fx_rates", stdout=out)

    assert out.getvalue().startswith("Read 3 rates, stored 3 new; newest day 2026-11-03;")
    assert FxRate.objects.filter(day=date(2026, 11, 3)).count() == 2


@pytest.mark.django_db
def test_the_command_refuses_an_unreadable_file_clearly(settings, tmp_path):
    path = tmp_path / "rates.csv"
    path.write_text("not,rates\n")
    settings.FX_RATES_FILE = str(path)

    with pytest.raises(CommandError, match="No rate loaded: the CSV does not start with a Date column"):
        call_command("load_fx_rates", stdout=io.StringIO())
