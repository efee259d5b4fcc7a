"""Income tax, child credit and net income of households (see `rules`)."""

from .rules import PARAMS_2024, FilingStatus, child_credit, income_tax, marginal_rate, net_income

__all__ = ["PARAMS_2024", "FilingStatus", "child_credit", "income_tax", "marginal_rate", "net_income"]
