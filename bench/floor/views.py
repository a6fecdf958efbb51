"""The Django floors' one APIView: parse the JSON body, run the floor's statement(s), answer."""

import uuid

from django.db import connection
from rest_framework.response import Response
from rest_framework.views import APIView

from . import work
from .statements import SAME_SCHEMA


def query(sql, params):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


class FloorView(APIView):
    """POST an event; `endpoint` picks order_confirmation, cancel or update, `sql` the schema's statements
    (the project's tables, or the minimal schema's: bench.floor.minimal)."""

    endpoint = ""
    sql = SAME_SCHEMA

    def post(self, request):
        raw = request.body  # kept as sent for the outcome row; request.data parses the same bytes
        data = request.data
        request_id = uuid.uuid4().hex
        if self.endpoint == "order_confirmation":
            answer = work.order_confirmation(query, raw, data, request_id, sql=self.sql)
        else:
            authorization = request.META.get("HTTP_AUTHORIZATION", "")
            answer = work.change(query, self.endpoint, raw, data, authorization, request_id, sql=self.sql)
        return Response(answer.body, status=answer.status)
