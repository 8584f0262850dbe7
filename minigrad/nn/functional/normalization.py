"""Normalization as functions: F.layer_norm, F.batch_norm, F.group_norm, F.rms_norm."""

from minigrad.ops.normalization import batch_norm, group_norm, layer_norm, rms_norm  # noqa: F401
