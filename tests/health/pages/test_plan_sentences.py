"""The Commission plan page's sentences (health.pages.plans.sentences): a rule's conditions and what it pays
as a person reads them, and the version's base, minimum, caps and tiers."""

import pytest

from health.pages.plans import sentences
from tests import factories


def said(when, names=None):
    return sentences.conditions(when, currency="USD", names=names or {})


def test_a_sku_reads_as_the_sku():
    assert said({"skus": ["DEMO-KIT"]}) == "SKU DEMO-KIT"


def test_several_skus_read_as_a_list():
    assert said({"skus": ["BELT-01", "TEE-07"]}) == "SKUs BELT-01, TEE-07"


def test_a_customer_condition_reads_as_who_the_customers_are():
    assert said({"customer": "returning"}) == "returning customers"
    assert said({"customer": "new"}) == "new customers"


def test_a_creator_reads_with_her_name_and_id():
    assert said({"creators": [5]}, {5: "Sam Second"}) == "creator Sam Second (#5)"


def test_a_creator_the_brand_no_longer_has_reads_as_her_id():
    assert said({"creators": [5, 9]}, {5: "Sam Second"}) == "creators Sam Second (#5), #9"


def test_collections_products_and_vendors_read_in_the_documents_order():
    assert said({"collections": ["summer", "belts"]}) == "collections summer, belts"
    assert said({"product_ids": ["123"]}) == "product 123"
    assert said({"vendors": ["Acme", "Globex"]}) == "vendors Acme, Globex"


def test_a_minimum_order_amount_reads_in_the_plans_currency():
    assert said({"order_amount_at_least": "20"}) == "order of at least 20.00 USD"


def test_several_conditions_are_joined_with_and():
    when = {"collections": ["summer"], "creators": [12], "customer": "new"}

    assert said(when, {12: "Ana"}) == "collection summer and creator Ana (#12) and new customers"


def test_a_rule_without_conditions_matches_every_order():
    assert said({}) == "every order"


def test_a_flat_amount_is_per_unit_in_a_line_rule_and_per_order_otherwise():
    assert sentences.pays({"flat": "3"}, currency="USD", per_line=True) == "3.00 USD per unit"
    assert sentences.pays({"flat": "3"}, currency="USD", per_line=False) == "3.00 USD per order"
    assert sentences.pays({"percent": "12", "flat": "1.5"}, currency="EUR", per_line=False) == (
        "12 % + 1.50 EUR per order"
    )


def test_the_rules_keep_their_order_and_say_which_are_judged_line_by_line():
    document = {
        "currency": "USD",
        "rules": [
            {"name": "Summer kit", "when": {"collections": ["summer"]}, "flat": "3.00"},
            {"name": "Ana's rate", "when": {"creators": [12]}, "percent": "20"},
        ],
    }

    shown = sentences.rules(document, names={12: "Ana"})

    assert shown == [
        {"name": "Summer kit", "when": "collection summer", "pays": "3.00 USD per unit", "per_line": True},
        {"name": "Ana's rate", "when": "creator Ana (#12)", "pays": "20 %", "per_line": False},
    ]


def test_the_terms_name_the_base_minimum_caps_and_tiers_when_set():
    document = {
        "currency": "USD",
        "base": {"shipping": True},
        "minimum_order_amount": "20",
        "cap_per_order": "50.00",
        "cap_per_creator_month": "1000",
        "tiers": [
            {"metric": "orders", "from": 10, "percent": "15"},
            {"metric": "revenue", "from": "5000", "percent": "18", "retroactive": True},
        ],
    }

    terms = dict(sentences.terms(document))
    tiers = [said for term, said in sentences.terms(document) if term == "Tier"]

    assert terms["Base"] == "after discounts, with shipping, without tax"
    assert terms["Minimum order"].startswith("20.00 USD: below it")
    assert terms["Cap per order"] == "50.00 USD"
    assert terms["Cap per creator a month"] == "1,000.00 USD (UTC months)"
    assert tiers == [
        "15 % once a creator has 10 orders in a calendar month, on the orders from there on",
        "18 % once a creator's revenue reaches 5,000.00 USD in a calendar month, and her earlier "
        "orders of the month are paid the difference",
    ]


def test_a_plan_without_limits_shows_only_its_base():
    assert [term for term, _ in sentences.terms({"currency": "USD"})] == ["Base"]


@pytest.mark.django_db
def test_the_creators_named_are_looked_up_in_one_query_for_the_brand(django_assert_num_queries, brand):
    ana = factories.CreatorFactory(brand=brand, name="Ana")
    sam = factories.CreatorFactory(brand=brand, name="Sam")
    elsewhere = factories.CreatorFactory(name="Not Acme's")
    document = {
        "rules": [
            {"name": "a", "when": {"creators": [ana.pk, elsewhere.pk]}},
            {"name": "b", "when": {"creators": [sam.pk]}},
            {"name": "c", "when": {"skus": ["X"]}},
        ]
    }

    with django_assert_num_queries(1):
        names = sentences.creator_names(brand, document)

    assert names == {ana.pk: "Ana", sam.pk: "Sam"}
