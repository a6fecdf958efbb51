"""An order confirmation's optional `items` (issue 56): its lines, each `{"sku", "product_id", "quantity",
"amount", "collections"}`, `amount` the line's total after discounts and before tax. Items never refuse the
order: what cannot be read is ignored, and why (attribution.orders.lines.OrderLines.ignored), the order judged on
its `orderAmount` alone."""

from attribution.contract.field_schemas import amount_number, amount_pattern
from attribution.parsing import MAX_LINE_COLLECTIONS as MAX_COLLECTIONS
from attribution.parsing import MAX_LINE_QUANTITY as MAX_QUANTITY
from attribution.parsing import MAX_LINE_TEXT as MAX_TEXT
from attribution.parsing import MAX_LINES

from .fields import RuleField


class ItemsField(RuleField):
    """The order's lines as sent, read by the decision's way in (attribution.orders.lines.read_items); any other
    shape is accepted and ignored, with a warning."""

    def __init__(self, **kwargs):
        super().__init__(outcome=None, **kwargs)

    def parse(self, value):
        return value

    def json_schema(self):
        text = {"oneOf": [{"type": "string", "maxLength": MAX_TEXT}, {"type": "integer", "minimum": 0}]}
        item = {
            "type": "object",
            "required": ["amount"],
            "properties": {
                "sku": {**text, "description": "The product's SKU."},
                "product_id": {**text, "description": "Your product's id."},
                "quantity": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_QUANTITY,
                    "description": "Units of the line; 1 when absent.",
                },
                "amount": {
                    "oneOf": [
                        amount_number(allow_zero=True),
                        {"type": "string", "pattern": amount_pattern(allow_zero=True)},
                    ],
                    "description": "The line's total after discounts, before tax, in the order's currency: "
                    "a number or a plain decimal string, as orderAmount.",
                },
                "collections": {
                    "type": "array",
                    "maxItems": MAX_COLLECTIONS,
                    "items": {"type": "string", "maxLength": MAX_TEXT},
                    "description": "The collections or categories the product is in, as your commission "
                    "plan names them.",
                },
            },
        }
        return {
            "anyOf": [
                {"type": "array", "maxItems": MAX_LINES, "items": item},
                {
                    "description": "anything else (null included): accepted and ignored; the order is judged "
                    "on orderAmount alone, with a warning on the answer and your health pages"
                },
            ]
        }
