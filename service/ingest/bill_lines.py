"""Which rows of a bill that are not GPU usage pay for a plan's cloud data and support lines.

Plan against actual (issue 43) sets a bill against the plan line by line. GPU rows give the
on-demand, spot and commitment lines (service/ingest/gpu_usage.py); the rows here give the
plan's ``storage`` (data kept in the cloud), ``egress`` (data sent out of it) and
``cloud_support`` (the provider's support plan). A row is read by the columns that say which
service it is, the way each export names them:

=============  ===================================================  =====================================
format         columns read                                         a row is
=============  ===================================================  =====================================
FOCUS          ServiceCategory, ServiceSubcategory, ServiceName,    support: ServiceSubcategory Support or
               ChargeDescription, SkuMeter, x_UsageType;            a ServiceName naming support;
               ChargeCategory Usage, Purchase or Credit             egress: text naming data sent out;
                                                                    storage: ServiceCategory Storage
AWS CUR        lineItem/ProductCode, product/ProductName,           support: a product naming support;
               product/productFamily, lineItem/UsageType;           egress: a usage type ``...Out-Bytes``
               lineItem/LineItemType not Tax                        or text naming data sent out;
                                                                    storage: product family Storage or
                                                                    Storage Snapshot, S3, EFS, FSx, Glacier
Azure          meterCategory, meterSubCategory, meterName,          support: a meter category or product
               ProductName; chargeType not Tax                      naming support; egress: category
                                                                    Bandwidth or text naming data out;
                                                                    storage: category Storage
Google Cloud   service.description, sku.description;               support: the service naming support;
               cost_type regular                                    egress: a SKU naming egress;
                                                                    storage: Cloud Storage, Filestore,
                                                                    or a disk or snapshot capacity SKU
=============  ===================================================  =====================================

Support is tested first (a support plan bills as a fee of any service), then egress (S3's
data transfer out is egress, not storage), then storage. A row of none of them (CPU instances,
databases, tax) is not a plan line and is not read. A GPU usage row or an unused commitment
is never one of these lines.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from service.ingest import exports

LINES = ("storage", "egress", "cloud_support")

# data that leaves the cloud: "Data Transfer Out", "DataTransfer-Out-Bytes",
# "USE1-APN1-AWS-Out-Bytes", "Network Internet Egress", "Internet data transfer"
_EGRESS = re.compile(r"egress|data ?transfer[ -]?out|out-bytes|internet data transfer|"
                     r"outbound data", re.IGNORECASE)
_SUPPORT = re.compile(r"\bsupport\b", re.IGNORECASE)
_AWS_STORAGE_PRODUCTS = {"amazons3", "amazonefs", "amazonfsx", "amazons3glacierdeeparchive",
                         "amazonglacier", "awsbackup"}
_AWS_STORAGE_FAMILIES = {"storage", "storage snapshot"}
_GCP_STORAGE_SERVICES = re.compile(r"cloud storage|filestore|netapp volumes", re.IGNORECASE)
_GCP_STORAGE_SKUS = re.compile(r"pd capacity|storage pd|snapshot storage|hyperdisk .*capacity|"
                               r"image storage", re.IGNORECASE)


def _matches(frame: pd.DataFrame, names: tuple[str, ...], pattern: re.Pattern,
             n: int) -> np.ndarray:
    """bool per row: any of the columns ``names`` the frame has matches ``pattern``."""
    out = np.zeros(n, dtype=bool)
    for name in names:
        col = exports.column(frame, name)
        if col is not None:
            out |= exports.by_value(frame[col], lambda s: s.str.contains(pattern)
                                    .to_numpy(dtype=bool))
    return out


def _assign(support: np.ndarray, egress: np.ndarray, storage: np.ndarray,
            eligible: np.ndarray) -> np.ndarray:
    """The line of each row ('' for none), support before egress before storage."""
    line = np.full(len(eligible), "", dtype=object)
    line[eligible & storage] = "storage"
    line[eligible & egress] = "egress"
    line[eligible & support] = "cloud_support"
    return line


def focus(frame: pd.DataFrame, not_gpu: np.ndarray) -> np.ndarray:
    """Line of each row of a FOCUS export (module table)."""
    n = len(frame)
    charge = exports.lowered_column(frame, "ChargeCategory", n)
    eligible = not_gpu & np.isin(charge, ["usage", "purchase", "credit"]) \
        & (exports.lowered_column(frame, "ChargeClass", n) != "correction")
    support = (exports.lowered_column(frame, "ServiceSubcategory", n) == "support") \
        | _matches(frame, ("ServiceName",), _SUPPORT, n)
    egress = _matches(frame, ("ChargeDescription", "SkuMeter", "x_UsageType",
                              "ServiceSubcategory"), _EGRESS, n)
    storage = exports.lowered_column(frame, "ServiceCategory", n) == "storage"
    return _assign(support, egress, storage, eligible)


def aws_cur(frame: pd.DataFrame, not_gpu: np.ndarray) -> np.ndarray:
    """Line of each row of an AWS CUR (module table)."""
    n = len(frame)
    kind = exports.lowered_column(frame, "lineItem/LineItemType", n)
    eligible = not_gpu & (kind != "tax")
    product = exports.lowered_column(frame, "lineItem/ProductCode", n)
    support = np.char.startswith(product.astype(str), "awssupport") \
        | _matches(frame, ("product/ProductName",), _SUPPORT, n)
    egress = _matches(frame, ("lineItem/UsageType", "lineItem/LineItemDescription"), _EGRESS, n)
    storage = np.isin(product, list(_AWS_STORAGE_PRODUCTS)) \
        | np.isin(exports.lowered_column(frame, "product/productFamily", n),
                  list(_AWS_STORAGE_FAMILIES))
    return _assign(support, egress, storage, eligible)


def azure(frame: pd.DataFrame, not_gpu: np.ndarray) -> np.ndarray:
    """Line of each row of an Azure cost details export (module table)."""
    n = len(frame)
    eligible = not_gpu & (exports.lowered_column(frame, "chargeType", n) != "tax")
    category = exports.lowered_column(frame, "meterCategory", n)
    support = _matches(frame, ("meterCategory", "ProductName", "Product"), _SUPPORT, n)
    egress = (category == "bandwidth") \
        | _matches(frame, ("meterName", "meterSubCategory"), _EGRESS, n)
    storage = category == "storage"
    return _assign(support, egress, storage, eligible)


def gcp(frame: pd.DataFrame, not_gpu: np.ndarray) -> np.ndarray:
    """Line of each row of a Google Cloud billing export (module table)."""
    n = len(frame)
    eligible = not_gpu & np.isin(exports.lowered_column(frame, "cost_type", n), ["regular", ""])
    support = _matches(frame, ("service.description",), _SUPPORT, n)
    egress = _matches(frame, ("sku.description",), _EGRESS, n)
    storage = _matches(frame, ("service.description",), _GCP_STORAGE_SERVICES, n) \
        | _matches(frame, ("sku.description",), _GCP_STORAGE_SKUS, n)
    return _assign(support, egress, storage, eligible)
