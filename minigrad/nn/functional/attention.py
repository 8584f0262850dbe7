"""Attention as a function: F.scaled_dot_product_attention."""

from minigrad.ops.attention import scaled_dot_product_attention  # noqa: F401
