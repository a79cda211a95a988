"""Formula pieces every strategy sheet shares: exchange rates and lagged tax effects.

``c(key, row)`` is the address of another column's cell in the same monthly table.
"""
from __future__ import annotations

FIRST = 43   # 0-based first data row of the monthly table (strategy_sheet.FIRST)


def fx_at(market: str, index: str) -> str:
    """Reporting units per unit of a market's currency at month index ``index`` (0 = the
    plan's first month): fx_rate x (1 + fx_trend_annual)^(index/12), or 1 when the market is
    in the reporting currency (models/prices.PriceBook.fx_at). A signed contract's own
    currency (models.scenario.Scenario.commitment_market): ``"reporting"`` is 1, ``"foreign"``
    always the rate."""
    if market == "reporting":
        return "1"
    if market == "foreign":
        return f"fx_rate*(1+fx_trend_annual)^(({index})/12)"
    return f"IF(calc_fx_{market}=1,fx_rate*(1+fx_trend_annual)^(({index})/12),1)"


def lagged(c, x: int, template: str, key: str) -> str:
    """finance_tax_rate x template(key of the row tax_payment_lag_months above), 0 before."""
    lagged = (f"INDEX({c(key, FIRST + 1)}:{c(key, x)},{c('m', x)}-"
              "finance_tax_payment_lag_months)")
    return (f"=IF({c('m', x)}>finance_tax_payment_lag_months,finance_tax_rate*"
            + template.format(lagged) + ",0)")
