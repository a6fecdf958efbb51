"""Hypothesis strategies of request bodies for the field rules' tests (attribution/parsing.py)."""

from hypothesis import strategies as st

# Every value a JSON body can carry, as loads_strict returns it.
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.decimals(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
)


json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)
