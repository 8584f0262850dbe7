"""Pooling as functions: F.max_pool2d, F.avg_pool2d, ..."""

from minigrad.ops.pool import adaptive_avg_pool2d, avg_pool1d, avg_pool2d, max_pool1d, max_pool2d  # noqa: F401
