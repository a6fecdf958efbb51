"""What a person needs after `make run`: the demo logins, the main developer key and one request to paste."""

import json


def summary(document: dict, *, base_url: str, now, path: str | None) -> str:
    """What a person needs after `make run`: logins, the main key and one request to paste."""
    main, users = document["brands"]["main"], document["users"]
    body = json.dumps(
        {
            "orderId": f"demo-{now:%Y%m%d%H%M%S}",
            "orderAmount": 59.90,
            "currency": "USD",
            "page_url": main["page_urls"]["primary"],
            "clickId": document["clicks"]["valid"],
        }
    )
    where = path or "the document above"
    return "\n".join(
        [
            "",
            "Demo world (the passwords and keys below are for this local demo only):",
            f"  Health pages  {base_url}/accounts/login/",
            f"    {users['main']['username']} / {users['main']['password']}   (brand {main['name']})",
            f"    {users['other']['username']} / {users['other']['password']}   "
            f"(brand {document['brands']['other']['name']})",
            f"  Review page   {base_url}/health/review/   (held commissions: release or reject them)",
            f"  Admin         {base_url}/admin/",
            f"    {users['admin']['username']} / {users['admin']['password']}   (account manager)",
            f"  Developer key of {main['name']} (cancel, update, read API):",
            f"    {main['developer_key']}",
            '  An order attributed by a creator\'s click (answers "tracked"; again: "duplicate_order"):',
            f"    curl -s -X POST {base_url}/api/order_confirmation -H 'Content-Type: application/json' -d '{body}'",
            f"  Every id, code and key is in {where}; docs/api.md has one curl per outcome.",
            "",
        ]
    )
