"""The demo world's tests: `manage.py seed_demo` run as `make run` runs it, and the document it wrote."""

import io
import json

import pytest
from django.core.management import call_command

URL = "/api/order_confirmation"


CANCEL = "/api/Affiliates/cancel"


@pytest.fixture
def seed(tmp_path):
    """Run the command as `make run` does and return the document it wrote; each run writes a new file
    unless `path` names the one to write again."""
    runs = iter(range(1, 100))

    def run(*options, path=None) -> dict:
        path = path or tmp_path / f"demo-world-{next(runs)}.json"
        out = io.StringIO()
        call_command("seed_demo", "--force", "--json", str(path), *options, stdout=out, stderr=io.StringIO())
        assert f"written to {path}" in out.getvalue()
        run.said = out.getvalue()
        return json.loads(path.read_text())

    return run


@pytest.fixture
def world(seed):
    return seed()


def cancel(api, key, order_id="never-sent"):
    return api.post(CANCEL, {"order_id": order_id}, key=key)
