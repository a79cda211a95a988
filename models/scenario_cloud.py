"""The cloud's prices and terms in a scenario: on demand, the commitment offers, spot, cloud
storage and egress, and the cloud's currency, VAT, setup fee and support.

Separate from the owned servers because every field here is what a cloud bills (their money
is in the cloud's currency, ``models.scenario.MARKET_OF_SECTION``).
"""
from __future__ import annotations

from typing import Literal, Optional

from models.fields import field
from models.scenario_types import CURRENCY_PATTERN, OFFER_ID_PATTERN, SMALL_UNIT, Section


class OnDemand(Section):
    price_per_gpu_hour: float = field(6.88, "On-demand price", "currency per GPU-hour",
                                      source="AWS p5.48xlarge us-east-1 $55.04/h, SkyPilot "
                                      "catalog 00148f2", essential=True, ge=0, le=1000 * SMALL_UNIT)
    price_trend_annual: float = field(0.0, "On-demand price trend", "fraction per year",
                                      "Cloud prices tend to fall: -20 % a year means each year's prices are 20 % "
                                      "below the year before's.",
                                      ge=-0.9, le=1)
    billing_increment_seconds: float = field(1, "Billing increment", "seconds",
                                             "Rounding overhead = increment/2 per session "
                                             "longer than the billing minimum.",
                                             "EC2 bills per second", guard=("le",), ge=0, le=86_400)
    billing_minimum_seconds: float = field(
        60, "Billing minimum", "seconds per session",
        "A session shorter than this is billed for this long (on demand and spot).",
        "EC2 bills per second with a 60 s minimum", guard=("le",), ge=0, le=86_400)
    mean_session_hours: float = field(24, "Mean session length", "hours",
                                      "At least one second.", guard=("ge", "le"),
                                      ge=1 / 3600, le=8760)
    relative_throughput: float = field(1.0, "Relative throughput", "work per GPU-hour vs the "
                                       "measured GPU", "Commitments and spot rent the same GPU.",
                                       guard=("ge", "le"), ge=0.01, le=100)


class CommitmentOffer(Section):
    id: str = field("1y", "Offer id", "text", pattern=OFFER_ID_PATTERN)
    term_months: int = field(12, "Term", "months", ge=1, le=120)
    discount: float = field(0.41, "Discount", "fraction of on-demand price",
                            source="Epoch AI cost model (1y 41 %, 3y 64 %)", essential=True,
                            ge=0, lt=1)
    price_per_gpu_hour: Optional[float] = field(
        None, "Committed price", "currency per GPU-hour",
        "Absolute price at first signing; overrides the discount.", ge=0, le=1000 * SMALL_UNIT)
    payment: Literal["none", "partial", "all"] = field("none", "Upfront payment", "option")
    block_gpus: int = field(8, "Block size", "GPUs per commitment unit",
                            source="one p5.48xlarge = 8 GPUs", guard=("le",), ge=1, le=1024)


DEFAULT_OFFERS = (CommitmentOffer(id="1y", term_months=12, discount=0.41),
                  CommitmentOffer(id="3y", term_months=36, discount=0.64))


class Spot(Section):
    discount: float = field(0.70, "Spot discount", "fraction of on-demand price",
                            source="AWS p5 spot from $11.25/h vs $55.04/h (us-east-2)",
                            essential=True, ge=0, lt=1)
    price_per_gpu_hour: Optional[float] = field(
        None, "Spot price", "currency per GPU-hour", "Overrides the discount.", ge=0,
        le=1000 * SMALL_UNIT)
    availability: float = field(0.8, "Spot availability", "fraction of interruptible demand",
                                "Share of interruptible work spot capacity can take; the rest "
                                "runs on demand.", "estimate", ge=0, le=1)
    interruptions_per_instance_hour: float = field(
        0.001, "Interruption rate", "per instance-hour",
        "A Spot Advisor monthly bucket f converts as -ln(1-f)/730.",
        "AWS Spot Advisor '> 20 %' bucket (estimate)", guard=("le",), ge=0, le=10)
    notice_seconds: float = field(120, "Interruption notice", "seconds",
                                  source="AWS 120 s, GCP and Azure 30 s", guard=("le",), ge=0,
                                  le=86_400)
    checkpoint_seconds: float = field(60, "Checkpoint write time", "seconds", guard=("le",),
                                      gt=0, le=86_400)
    restart_seconds: float = field(600, "Restart time", "seconds",
                                   "Re-acquire, pull image, reload data.", guard=("le",),
                                   ge=0, le=86_400)
    nodes_per_job: int = field(1, "Nodes per job", "nodes",
                               "A gang is interrupted when any node is.", guard=("le",),
                               ge=1, le=100_000)


class CloudData(Section):
    storage_tb: float = field(0, "Cloud storage", "TB", "Datasets and checkpoints.",
                              guard=("le",), ge=0, le=1e6)
    storage_price_per_gb_month: float = field(0.023, "Storage price", "currency per GB-month",
                                              source="AWS S3 Standard", ge=0, le=10 * SMALL_UNIT)
    egress_tb_per_month: float = field(0, "Egress", "TB per month", guard=("le",), ge=0, le=1e6)
    egress_price_per_gb: float = field(0.09, "Egress price", "currency per GB",
                                       source="AWS internet egress, first 10 TB", ge=0,
                                       le=10 * SMALL_UNIT)


class CloudTerms(Section):
    currency: Optional[str] = field(
        None, "Currency of cloud prices", "ISO 4217 code",
        "On-demand, spot and committed prices, cloud storage and egress, setup fee and support, "
        "and the commitments already signed are billed in it; empty = the reporting currency.",
        pattern=CURRENCY_PATTERN)
    prices_include_vat: bool = field(False, "Cloud prices include VAT", "yes/no")
    vat_rate: float = field(0.0, "VAT rate", "fraction", ge=0, le=1)
    setup_fee: float = field(0.0, "Cloud setup fee", "currency", ge=0, le=1e8 * SMALL_UNIT)
    support_fraction: float = field(0.0, "Cloud support", "fraction of monthly cloud spend",
                                    ge=0, le=1)
    support_minimum_per_month: float = field(0.0, "Cloud support minimum", "currency per month",
                                             ge=0, le=1e7 * SMALL_UNIT)
