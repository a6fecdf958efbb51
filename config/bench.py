"""The benchmark's baseline: a constant JSON answer through the same server, middleware and
settings as the API. Wired only when BENCHMARK is set (see config/urls.py and bench/run.py)."""

from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt

_BODY = {"success": True, "outcome": "baseline", "message": "constant"}


@csrf_exempt
def baseline(request):
    return JsonResponse(_BODY)
