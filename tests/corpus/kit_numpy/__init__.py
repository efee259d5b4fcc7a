"""A small package written the way real NumPy-flavoured code reaches its functions (issue 27, D16):
`geodesy` imports NumPy's functions by name, `optics` calls them through a numeric module that
re-exports `math` and NumPy functions under the alias `math`, `tax` writes builtins with their
keywords (`round(x, ndigits=2)`, a per-call ndigits, `math.modf`, `dict(a=...)`)."""
