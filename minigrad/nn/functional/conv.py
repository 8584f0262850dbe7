"""Convolutions as functions: F.conv1d, F.conv2d, F.conv_transpose2d."""

from minigrad.ops.conv import conv1d, conv2d, conv_transpose2d  # noqa: F401
