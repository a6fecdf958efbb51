"""Round six, finding 8 (docs/threat-model.md): the rates' file is untrusted input. A zip bomb is refused, read as a
stream; a row is kept only for an ISO 4217 code, a day not after today and a rate the table can hold; a bad row is
reported and left out, the rest of the file loads; the download has a deadline and a cap."""

import io
import zipfile
from datetime import date, timedelta
from decimal import Decimal

import httpx
import pytest
from django.core.management import call_command
from django.utils import timezone

from attribution.fx import ecb, loading
from attribution.models import FxRate
from tests.outbound_double import Endless

URL = "https://rates.example/eurofxref-hist.zip"


def zipped(text: str, *, name: str = "eurofxref-hist.csv") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, text)
    return buffer.getvalue()


def test_a_zip_bomb_is_refused_without_inflating_it_whole():
    bomb = zipped("Date,USD,\n" + "0" * (40 * 1024 * 1024))  # 40 MB of zeros, about 40 KB zipped

    assert len(bomb) < 100_000
    with pytest.raises(ecb.UnreadableRates, match="over the 1,048,576 bytes read"):
        ecb.read(bomb, max_uncompressed=1024 * 1024)


@pytest.mark.parametrize(
    ("header", "cell", "says"),
    [
        ("usd", "1.15", "'usd' on 2026-11-03: not an ISO 4217 currency code"),
        ("ÄÖÜ", "1.15", "'ÄÖÜ' on 2026-11-03: not an ISO 4217 currency code"),
        ("XYZ", "1.15", "'XYZ' on 2026-11-03: not an ISO 4217 currency code"),
        ("JPY", "0.0000001", "JPY on 2026-11-03: 1E-7 is outside"),
        ("JPY", "1e30", "JPY on 2026-11-03: 1E+30 is outside"),
        ("JPY", "NaN", "'NaN' is not a rate"),
    ],
)
def test_a_bad_row_is_reported_and_the_rest_of_the_file_loads(header, cell, says):
    refused = []

    rates = ecb.read(f"Date,USD,{header},\n2026-11-03,1.1500,{cell},\n".encode(), refused=refused)

    assert rates == [ecb.Rate(date(2026, 11, 3), "USD", Decimal("1.1500"))]
    assert len(refused) == 1 and says in refused[0]


def test_a_day_after_today_is_refused():
    tomorrow = timezone.now().date() + timedelta(days=1)
    refused = []

    rates = ecb.read(f"Date,USD,\n{tomorrow},1.2,\n2026-11-03,1.15,\n".encode(), refused=refused)

    assert [r.day for r in rates] == [date(2026, 11, 3)]
    assert refused == [f"USD on {tomorrow}: a day after today"]


@pytest.mark.django_db
def test_the_command_stores_the_good_rows_and_says_which_it_left_out(settings, tmp_path):
    path = tmp_path / "rates.csv"
    path.write_text("Date,USD,usd,JPY,\n2026-11-04,1.1510,1.1510,1e-9,\n")
    settings.FX_RATES_FILE = str(path)
    FxRate.objects.filter(day=date(2026, 11, 4)).delete()
    out = io.StringIO()

    call_command("load_fx_rates", stdout=out)

    assert list(FxRate.objects.filter(day=date(2026, 11, 4)).values_list("currency", flat=True)) == ["USD"]
    said = out.getvalue()
    assert "stored 1 new" in said and "Left out 2 rows: 'usd' on 2026-11-04" in said


@pytest.mark.django_db
def test_a_download_over_the_cap_is_stopped_and_stores_nothing(settings, outbound_double):
    settings.FX_RATES_FILE, settings.FX_RATES_URL, settings.FX_RATES_MAX_BYTES = "", URL, 1024
    endless = Endless(size=512)  # no Content-Length: only reading tells
    outbound_double.serve("rates.example", lambda request: httpx.Response(200, stream=endless))
    before = FxRate.objects.count()

    with pytest.raises(ecb.DownloadFailed, match="over the 1,024 bytes read"):
        loading.refresh()

    assert FxRate.objects.count() == before
    assert endless.sent == 1536  # read as a stream, stopped at the first piece past the cap


@pytest.mark.django_db
def test_a_redirect_is_not_followed(settings, outbound_double):
    settings.FX_RATES_FILE, settings.FX_RATES_URL = "", URL
    outbound_double.serve(
        "rates.example", lambda request: httpx.Response(302, headers={"Location": "http://169.254.169.254/"})
    )

    with pytest.raises(ecb.DownloadFailed, match="answered 302"):
        loading.refresh()

    assert outbound_double.hosts_called() == ["rates.example"]
