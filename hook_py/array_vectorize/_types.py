"""``types.FunctionType`` and ``types.CodeType`` without importing ``types``, for the modules
that load with ``import array_vectorize`` (importlib does the same: a bare interpreter has not
imported ``types`` yet, and every module on this path counts against a warm import)."""


def _function() -> None:
    pass


FunctionType = type(_function)
CodeType = type(_function.__code__)
