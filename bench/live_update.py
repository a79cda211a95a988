"""Latency of the live plan (issue 16): from an edit in the form to the new numbers on screen.

    .venv/bin/python bench/live_update.py [--edits 50] [--scenario sample|growth] [--json]

Seeds a throwaway instance with the sample scenario (8x H100 vs AWS p5, the hourly sample
usage, 60 months), starts the app under waitress in its own process on a free loopback port,
logs in with Chromium through Playwright and changes the server price ``--edits`` times on the
edit page, each time waiting for the strategy cards and the cumulative-cost chart to show the
new plan. The page itself measures each edit (``performance.now()`` at the input event to the
redrawn cards and chart, ``data-ms`` of ``#live-status``); the server's share is the preview
endpoint's own time (``server_ms``). Reported: p50, p95 and max of both, in milliseconds.
Target: p95 of the page figure under 300 ms. Everything stops by itself (the server process is
terminated at the end).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.chromium import launch, login, new_page, seed, serve  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


SCENARIOS = {"sample": ROOT / "samples" / "scenario_h100.json",
             "growth": ROOT / "samples" / "scenario_growth.json"}


def run(edits: int, scenario: str = "sample") -> dict:
    from playwright.sync_api import sync_playwright
    page_ms, server_ms = [], []
    with tempfile.TemporaryDirectory(prefix="buyrent-bench-") as tmp:
        instance = Path(tmp) / "instance"
        seed(instance, SCENARIOS[scenario]) if scenario != "sample" else seed(instance)
        with serve(instance) as base, sync_playwright() as p:
            browser = launch(p)
            problems: list[str] = []
            page = new_page(browser, problems)
            page.on("response", lambda r: server_ms.append(r.json()["server_ms"])
                    if r.url.endswith("/preview") else None)
            login(page, base, "ana")
            page.goto(base + "/scenarios/1/edit")
            page.wait_for_selector("#live-status[data-seq='1']")
            server_ms.clear()
            for i in range(edits):
                price = f"{200_000 + 2_500 * (i % 40):,}"
                page.fill("[name='owned.server_price']", price)
                page.wait_for_selector("#scenario-form[data-state='shown']")
                page_ms.append(float(page.get_attribute("#live-status", "data-ms")))
            browser.close()
            if problems:
                raise SystemExit(f"browser problems: {problems}")
    return {"edits": edits,
            "page_ms": {"p50": statistics.median(page_ms), "p95": percentile(page_ms, .95),
                        "max": max(page_ms)},
            "server_ms": {"p50": statistics.median(server_ms),
                          "p95": percentile(server_ms, .95), "max": max(server_ms)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), default="sample",
                        help="sample (8x H100 vs AWS p5) or growth (30 %%/yr, staged plan)")
    args = parser.parse_args()
    result = run(args.edits, args.scenario)
    if args.json:
        print(json.dumps(result))
        return
    print(f"live plan, {args.scenario} scenario, {result['edits']} edits of the server price "
          "(static strategies and the last staged schedule re-priced in the request; the "
          "re-optimized schedule follows from a preview job)")
    for key, title in (("page_ms", "edit -> cards and chart redrawn"),
                       ("server_ms", "preview endpoint (server)")):
        r = result[key]
        print(f"  {title:34s} p50 {r['p50']:6.0f} ms  p95 {r['p95']:6.0f} ms  "
              f"max {r['max']:6.0f} ms")
    print(f"  target: p95 < 300 ms -> {'met' if result['page_ms']['p95'] < 300 else 'MISSED'}")


if __name__ == "__main__":
    main()
