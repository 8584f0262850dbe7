"""The hot paths, one file per family per backend; they take and return arrays and know
nothing of Tensors or autograd (see minigrad/backends/__init__.py)."""
