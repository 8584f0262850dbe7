"""`mg.onnx`: torch.onnx's names, for programs that mention ONNX; minigrad cannot export.

ONNX export traces a model into a graph of standard operators that other runtimes
execute. minigrad has no exporter: `export` raises NotImplementedError saying so, so a
program fails at the export with a clear message rather than at `import`.
`is_in_onnx_export()` is False, as in torch outside an export, so model code that asks
it takes its ordinary path. To move a model elsewhere, save its state_dict: it has
PyTorch's names and shapes (see mg.save).
"""


def export(model, args=(), f=None, **kwargs):
    """Raises NotImplementedError: minigrad cannot export to ONNX (`torch.onnx.export`)."""
    raise NotImplementedError(
        "mg.onnx.export: minigrad cannot export models to ONNX. Save the weights instead "
        "(mg.save(model.state_dict(), path)): they load into the same PyTorch model, which "
        "torch.onnx can export"
    )


def is_in_onnx_export():
    """False: no ONNX export is ever running (`torch.onnx.is_in_onnx_export`)."""
    return False
