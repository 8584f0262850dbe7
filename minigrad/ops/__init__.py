"""Differentiable ops, one file per family; each op is a `Function` subclass."""
