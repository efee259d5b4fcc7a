"""The package's exceptions."""


class GeodesyError(ValueError):
    """A coordinate outside the domain of a formula."""


class LatitudeError(GeodesyError):
    """A latitude beyond a pole."""
