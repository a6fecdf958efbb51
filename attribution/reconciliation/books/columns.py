"""A book's header: which format it is, where each field's column is, and the brand's column map (a mapped
field is read from its header whatever the format would read; the fields it leaves are found by name)."""

from dataclasses import dataclass, field

from attribution.models import Reconciliation
from attribution.outcomes import say

from .errors import BookError
from .statuses import MAPPED

Format = Reconciliation.Format


@dataclass(frozen=True)
class Columns:
    """Where a format's fields are in this file's header (indexes; None when absent)."""

    order_id: int
    amount: int
    currency: int | None
    status: int | None = None
    code: int | None = None
    click_id: int | None = None
    ordered_at: int | None = None
    test: int | None = None
    # Shopify: the other order id column, the cancellation date, the note attributes and what was refunded.
    alt_order_id: int | None = None
    cancelled_at: int | None = None
    note_attributes: int | None = None
    refunded: int | None = None
    group_by: int | None = None  # Shopify: Name, which every line-item row of an order repeats
    # Shopify: each row's line item (issue 56), as (Lineitem quantity, price, sku, discount); None without them.
    line_items: tuple | None = None
    # Shopify: the order's Subtotal, Shipping, Taxes and Total (books/taxes.py); None without all four.
    order_figures: tuple | None = None
    order_id_name: str = ""
    amount_name: str = ""
    # Each field of FIELDS that is read, with the header it is read from; the fields the brand mapped.
    headers: dict = field(default_factory=dict)
    mapped: tuple[str, ...] = ()
    statuses: str = ""  # whose statuses the status column holds: a format's, or MAPPED (statuses.read_status)


GENERIC_REQUIRED = ("order_id", "amount", "currency")
GENERIC_OPTIONAL = ("status", "code", "click_id", "ordered_at", "test")
# The fields a brand may map, named as the generic format's columns.
FIELDS = GENERIC_REQUIRED + GENERIC_OPTIONAL
MAP_PREFIX = "column_"  # an upload's column_<field>=<header> maps a field to a header of the file
MAX_HEADER_NAME = 255
# In a query string (a text/csv upload's options) a mapped header is shorter: the whole request line must fit the
# 8 KB the servers in front take (config/serving.py), with every column_<field> at its longest and each character
# sent as up to 12 bytes (%XX of 4 bytes of UTF-8). 8 fields of 64 and a filename of 128: under 8 KB.
MAX_HEADER_NAME_IN_QUERY = 64
MAX_FILENAME_IN_QUERY = 128
WOO_ALIASES = {
    "order_id": ("order id", "order number", "order #", "order_id"),
    "amount": ("order total", "order total amount", "total"),
    "currency": ("order currency", "currency"),
    "code": ("coupon code", "coupon codes", "coupons", "coupon"),
    "status": ("order status", "status"),
    "ordered_at": ("order date", "date created", "date"),
}


def _key(name: str) -> str:
    return " ".join(name.strip().lower().split())


def overlong_map(name: str, limit: int = MAX_HEADER_NAME) -> BookError:
    return BookError(say("book.map_too_long", field=f"{MAP_PREFIX}{name}", most=limit))


def check_map(column_map: dict[str, str]) -> None:
    """BookError for a map no file could satisfy: an unknown field, an overlong name, one column twice."""
    for name, header in column_map.items():
        if name not in FIELDS:
            raise BookError(
                say(
                    "book.map_unknown",
                    field=f"{MAP_PREFIX}{name[:40]}",
                    fields=", ".join(MAP_PREFIX + f for f in FIELDS),
                )
            )
        if len(header) > MAX_HEADER_NAME:
            raise overlong_map(name)
    seen: dict[str, str] = {}
    for name, header in column_map.items():
        if (other := seen.setdefault(_key(header), name)) != name:
            raise BookError(say("book.map_twice", column=repr(header[:60]), other=other, name=name))


def columns_named(header: list[str]) -> list[str]:
    """The file's column names as a brand would pick them: stripped, the empty ones left out, each once."""
    names, seen = [], set()
    for name in header:
        if (cleaned := name.strip()) and _key(cleaned) not in seen:
            seen.add(_key(cleaned))
            names.append(cleaned[:MAX_HEADER_NAME])
    return names


def _listed(header: list[str], most: int = 30) -> str:
    names = columns_named(header)
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _names(fmt: str, mapping: bool) -> dict[str, tuple[str, ...]]:
    """The header names each field is found by: the format's own; beside a map, the other format's too,
    since a file the brand maps is rarely named as ours (docs/decisions.md, "Reconciliation: a brand maps
    the columns")."""
    generic = {name: (name,) for name in FIELDS}
    if fmt == Format.GENERIC:
        return {f: generic[f] + WOO_ALIASES.get(f, ()) for f in FIELDS} if mapping else generic
    return {f: WOO_ALIASES.get(f, ()) + (generic[f] if mapping else ()) for f in FIELDS}


def suggest(header: list[str]) -> dict[str, str]:
    """For each field, the column of this header a map would read without being told: a starting point
    for a brand choosing its columns."""
    index = _index(header)
    found = _found(index, _names(Format.GENERIC, mapping=True), taken=set())
    return {name: header[i].strip() for name, i in found.items()}


def _index(header: list[str]) -> dict[str, int]:
    index: dict[str, int] = {}
    for i, name in enumerate(header):
        if name.strip():
            index.setdefault(_key(name), i)
    return index


def _found(index: dict[str, int], names: dict[str, tuple[str, ...]], taken: set[int]) -> dict[str, int]:
    """Each field at the first of its names the header has, leaving the columns already taken."""
    found = {}
    for name, aliases in names.items():
        i = next((index[a] for a in aliases if a in index and index[a] not in taken), None)
        if i is not None:
            found[name] = i
    return found


def _mapped(header: list[str], index: dict[str, int], column_map: dict[str, str]) -> dict[str, int]:
    """The mapped fields' columns; BookError naming a mapped header the file does not have."""
    mapped = {}
    for name, wanted in column_map.items():
        i = index.get(_key(wanted))
        if i is None:
            raise BookError(
                say(
                    "book.map_missing",
                    column=repr(wanted[:60]),
                    field=f"{MAP_PREFIX}{name}",
                    columns=_listed(header),
                )
            )
        mapped[name] = i
    return mapped


def detect(
    header: list[str],
    *,
    order_id_column: str = "",
    amount_column: str = "",
    column_map: dict[str, str] | None = None,
) -> tuple[str, Columns]:
    """The format of a header and where its fields are; BookError naming the missing column. A mapped
    field is read from its header whatever the format would read."""
    column_map = column_map or {}
    index = _index(header)
    mapped = _mapped(header, index, column_map)
    if "name" in index and "financial status" in index:
        return Format.SHOPIFY, _shopify_columns(index, header, order_id_column, amount_column, mapped)
    if any(alias in index for alias in ("order id", "order number")) and "order_id" not in index:
        fmt = Format.WOOCOMMERCE
    else:
        fmt = Format.GENERIC
    found = {**_found(index, _names(fmt, bool(mapped)), taken=set(mapped.values())), **mapped}
    missing = [name for name in GENERIC_REQUIRED if name not in found]
    if fmt == Format.WOOCOMMERCE and missing:
        label = {"order_id": "Order ID", "amount": "Order Total", "currency": "Order Currency"}[missing[0]]
        raise BookError(say("book.woocommerce_missing", label=label, what=missing[0].replace("_", " ")))
    if missing:
        raise BookError(
            say("book.missing", missing=" and no ".join(missing), them="it" if len(missing) == 1 else "them")
        )
    return fmt, Columns(
        order_id=found["order_id"],
        amount=found["amount"],
        currency=found["currency"],
        **{name: found.get(name) for name in GENERIC_OPTIONAL},
        order_id_name=header[found["order_id"]].strip(),
        amount_name=header[found["amount"]].strip(),
        headers={name: header[i].strip() for name, i in found.items()},
        mapped=tuple(name for name in FIELDS if name in mapped),
        statuses=MAPPED if mapped else fmt,
    )


def _shopify_columns(
    index: dict[str, int], header: list[str], order_id_column: str, amount_column: str, mapped: dict[str, int]
) -> Columns:
    amount_name = {"": "subtotal", "subtotal": "subtotal", "total": "total"}.get(amount_column.lower())
    if amount_name is None:
        raise BookError(say("book.amount_column"))
    if amount_name not in index and "amount" not in mapped:
        raise BookError(say("book.shopify_missing", label=amount_name.title()))
    if "currency" not in index and "currency" not in mapped:
        raise BookError(say("book.shopify_missing", label="Currency"))
    choice = order_id_column.lower()
    if choice not in ("", "id", "name"):
        raise BookError(say("book.order_id_column"))
    if choice == "id" and "id" not in index:
        raise BookError(say("book.shopify_no_id"))
    # Without a choice, both are read and the matching keeps the one this brand's events use.
    first, other = ("name", "id") if choice == "name" or "id" not in index else ("id", "name")
    taken = set(mapped.values())

    def own(name: str) -> int | None:  # a Shopify column, unless the brand mapped it to another field
        i = index.get(name)
        return None if i is None or i in taken else i

    found = {
        "order_id": index[first],
        "amount": index.get(amount_name),
        "currency": index.get("currency"),
        "status": own("financial status"),
        "code": own("discount code"),
        "ordered_at": own("created at"),
        **mapped,
    }
    found = {name: i for name, i in found.items() if i is not None}
    # A mapped click replaces the note attributes' one; a mapped order id replaces the choice of Id or Name.
    notes = own("note attributes") if "click_id" not in mapped else None
    alt = index.get(other) if not choice and "order_id" not in mapped else None
    headers = {name: header[i].strip() for name, i in found.items()}
    quantity, price = own("lineitem quantity"), own("lineitem price")
    line_items = None
    if quantity is not None and price is not None:
        line_items = (quantity, price, own("lineitem sku"), own("lineitem discount"))
    figures = tuple(index.get(name) for name in ("subtotal", "shipping", "taxes", "total"))
    if notes is not None:
        headers["click_id"] = header[notes].strip()
    return Columns(
        order_id=found["order_id"],
        alt_order_id=alt,
        amount=found["amount"],
        currency=found["currency"],
        status=found.get("status"),
        code=found.get("code"),
        click_id=found.get("click_id"),
        ordered_at=found.get("ordered_at"),
        test=found.get("test"),
        cancelled_at=own("cancelled at"),
        note_attributes=notes,
        refunded=own("refunded amount"),
        group_by=index["name"],
        line_items=line_items,
        order_figures=figures if None not in figures else None,
        order_id_name=header[found["order_id"]].strip() if "order_id" in mapped else first.title(),
        amount_name=header[found["amount"]].strip() if "amount" in mapped else amount_name.title(),
        headers=headers,
        mapped=tuple(name for name in FIELDS if name in mapped),
        statuses=MAPPED if "status" in mapped else Format.SHOPIFY,
    )
