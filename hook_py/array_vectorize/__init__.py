"""array-vectorize: compile scalar Python functions into exact Array API code.

>>> from array_vectorize import vectorize
>>> @vectorize
... def relu(x):
...     return x if x > 0.0 else 0.0

``relu(array)`` runs whole-array code on NumPy, CuPy, PyTorch, JAX, Dask or any other Array API
library; ``relu.source`` is the generated code.
"""

from ._core import BUILD_ID, InternalError, VectorizationError
from ._stats import stats
from .api import CompileDisabledError, vectorize

__all__ = ["BUILD_ID", "CompileDisabledError", "InternalError", "VectorizationError", "stats", "vectorize"]
__version__ = "0.1.0"
