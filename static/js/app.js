// buyrent pages: charts from <script type="application/json"> blocks (no inline scripts, CSP),
// and a busy note on forms that compute a plan (the preset choosers: presets.js).
(function () {
  "use strict";

  // The legend never shares space with an axis title: beside the plot on a wide chart (the
  // y title is on the left, the x title below), and on a narrow one (the live plan's) in a
  // bottom margin under the x title made as tall as the legend turns out (fitLegendBelow).
  // Plotly's own placement below the plot (y: -0.18) overlapped the x title as soon as the
  // legend took two rows. tests/system/test_chart_layout.py compares the bounding boxes.
  var LAYOUT = {margin: {t: 40, r: 20, b: 50, l: 70}, hovermode: "x unified", font: {size: 12}};
  var WIDE = 700;          // px: narrower charts put the legend below
  var BELOW_AXIS = 64;     // px under the plot taken by the tick labels and the x title
  var LEGEND_GUESS = 50;   // px of a legend below before it is measured (two or three rows)
  var LEGEND_BESIDE = {orientation: "v", x: 1.02, xanchor: "left", y: 1, yanchor: "top"};

  function below(el, legendPx, margin) {
    var b = BELOW_AXIS + legendPx + 8;
    var plot = Math.max(el.clientHeight - margin.t - b, 40);
    return {b: b, y: -BELOW_AXIS / plot};
  }

  function placeLegend(el, l) {
    if (l.showlegend === false) { return l; }
    if (el.clientWidth >= WIDE) {
      l.legend = Object.assign({}, LEGEND_BESIDE, l.legend || {});
      return l;
    }
    var margin = Object.assign({}, l.margin);
    var at = below(el, Number(el.dataset.legendPx || LEGEND_GUESS), margin);
    margin.b = at.b;
    l.margin = margin;
    l.legend = {orientation: "h", x: 0, xanchor: "left", y: at.y, yanchor: "top"};
    return l;
  }

  // After drawing a narrow chart: the bottom margin as tall as the legend really is
  // (its entries wrap by their own widths, which differ by language).
  function fitLegendBelow(el) {
    var legend = el.querySelector(".legend");
    if (!legend || el.clientWidth >= WIDE || !el.layout.legend ||
        el.layout.legend.orientation !== "h") { return; }
    var px = Math.ceil(legend.getBBox().height);
    if (String(px) === el.dataset.legendPx) { return; }
    el.dataset.legendPx = String(px);
    var at = below(el, px, el.layout.margin);
    window.Plotly.relayout(el, {"margin.b": at.b, "legend.y": at.y});
  }

  // An axis title keeps STANDOFF px from its tick labels, and the margin grows to hold both
  // (automargin): with the fixed margin alone the titles stood 2 px from the ticks, touching
  // them on a Korean axis (ticks "1,234만") and on the waterfall (issue 39, item 4). Hangul
  // glyph boxes are taller than Latin ones: 10 px left 3 px between a Korean x title and its
  // ticks, 14 px leaves 7.
  var STANDOFF = 14;
  function axis(title, extra) {
    return Object.assign({automargin: true, title: {text: title, standoff: STANDOFF}},
                         extra || {});
  }

  // xFormat: dates on the x axis as numbers ("%Y-%m"), never as English month names.
  function layout(title, xTitle, yTitle, extra, xFormat) {
    var xaxis = axis(xTitle);
    if (xFormat) { xaxis.tickformat = xFormat; xaxis.hoverformat = xFormat; }
    var l = Object.assign({}, LAYOUT, {title: {text: title},
      xaxis: xaxis, yaxis: axis(yTitle)});
    return Object.assign(l, extra || {});
  }

  // Words come from the server in the page's language: d.text (titles, axes) and d.names
  // (series keys -> labels); the English fallbacks only serve data without them.
  function t(d, key, fallback) { return (d.text && d.text[key]) || fallback; }
  function nm(d, kind, key) { return (d.names && d.names[kind + ":" + key]) || key; }
  function fill(template, values) {
    return template.replace(/%\((\w+)\)s/g, function (_, k) { return values[k]; });
  }

  var BUILDERS = {
    usage: function (d) {
      var traces = [
        {type: "bar", name: t(d, "steady", "steady"), x: d.x, y: d.steady},
        {type: "bar", name: t(d, "interruptible", "interruptible"), x: d.x, y: d.interruptible}];
      if (d.busy) {   // GPU busy time joined with the usage: allocated bars, busy line
        traces.push({type: "scatter", mode: "lines", name: t(d, "busy", "busy"), x: d.x,
                     y: d.busy, connectgaps: false, line: {color: "#222"}});
      }
      var title = d.busy ? t(d, "title_busy", "GPU-hours per " + d.per + ": allocated and busy")
                         : t(d, "title", "GPU-hours per " + d.per);
      return {data: traces,
        layout: layout(title, t(d, "x", d.per), t(d, "y", "GPU-hours"), {barmode: "stack"},
                       d.per === "month" ? "%Y-%m" : "%Y-%m-%d")};
    },
    cumulative: function (d) {
      // d.cumulative_lines (service/plans/chart_view.py): strategies with the same monthly
      // figures as one line ("Optimal mix = Staged plan"), a strategy far dearer than all on
      // demand hidden until its legend entry is clicked, the recommended plan drawn thicker
      var lines = d.cumulative_lines || Object.keys(d.cumulative).map(function (name) {
        return {names: [name], label: nm(d, "strategy", name)};
      });
      return {data: lines.map(function (line) {
        return {type: "scatter", mode: "lines", name: line.label, x: d.months,
                y: d.cumulative[line.names[0]], visible: line.hidden ? "legendonly" : true,
                line: {width: line.recommended ? 3.5 : 2}};
      }), layout: layout(t(d, "cumulative", "Cumulative cost by strategy"), t(d, "month", "month"),
                         t(d, "cost", "cost"), null, "%Y-%m")};
    },
    by_source: function (d) {
      var groups = d.by_source.groups;
      if (!groups) {   // data without groups: one bar per cost line
        var lines = d.by_source.lines;
        return {data: Object.keys(lines).map(function (name) {
          return {type: "bar", name: nm(d, "line", name), x: d.months, y: lines[name]};
        }), layout: layout(t(d, "by_source", "Monthly cost by source: " + d.by_source.strategy),
                           t(d, "month", "month"), t(d, "cost", "cost"), {barmode: "relative"},
                           "%Y-%m")};
      }
      // running costs by group below; purchases, upfront payments and resale in a panel of
      // their own above, each panel from zero (service/plans/chart_view.py says why)
      var capital = groups.capital.length > 0;
      var traces = groups.running.map(function (g) {
        return {type: "bar", name: g.label, x: d.months, y: g.y};
      }).concat(groups.capital.map(function (g) {
        return {type: "bar", name: g.label, x: d.months, y: g.y, yaxis: "y2",
                marker: {pattern: {shape: "/"}}};
      }));
      var l = layout(t(d, "by_source", "Monthly cost by source: " + d.by_source.strategy),
                     t(d, "month", "month"), t(d, "running", t(d, "cost", "cost")),
                     {barmode: "relative"}, "%Y-%m");
      if (capital) {   // the upper axis formats its numbers as the lower one does
        // d.by_source.panels: the panels' shares of the height, tall enough for a purchase to
        // be a bar (issue 39, item 4); the largest purchase labelled with its amount
        var panels = d.by_source.panels || {capital: [0.58, 1], running: [0, 0.48]};
        l.yaxis2 = Object.assign({}, l.yaxis, {domain: panels.capital, anchor: "x",
                                               title: Object.assign({}, l.yaxis.title,
                                                 {text: t(d, "capital", "capital")})});
        l.yaxis = Object.assign(l.yaxis, {domain: panels.running});
        if (d.by_source.height) { l.height = d.by_source.height; }
        l.hoversubplots = "axis";
        var big = d.by_source.largest;
        if (big) {     // the label on the side of the bar with more room
          var late = d.months.indexOf(big.month) > d.months.length / 2;
          l.annotations = [{x: big.month, y: big.value, xref: "x", yref: "y2",
                            text: plain(big.text), showarrow: true, arrowhead: 2,
                            ax: late ? -40 : 40, ay: -4, xanchor: late ? "right" : "left",
                            bgcolor: "rgba(255,255,255,0.85)"}];
        }
      }
      return {data: traces, layout: l};
    },
    load_duration: function (d) {
      var ld = d.load_duration;
      var traces = [{type: "scatter", mode: "lines", name: t(d, "demand", "demand"),
                     x: ld.fraction_of_hours, y: ld.gpus, fill: "tozeroy"}];
      Object.keys(ld.levels || {}).forEach(function (name) {
        traces.push({type: "scatter", mode: "lines",
                     name: fill(t(d, "capacity", "%(name)s capacity"), {name: nm(d, "source", name)}),
                     x: [0, 1], y: [ld.levels[name], ld.levels[name]],
                     line: {dash: "dash"}});
      });
      return {data: traces, layout: layout(
        t(d, "load_duration", "Load-duration curve with chosen capacities"),
        t(d, "fraction_of_hours", "fraction of hours with at least this demand"),
        t(d, "gpus_busy", "GPUs busy"), {hovermode: "closest"})};
    },
    screening: function (d) {
      var sc = d.screening;
      var traces = Object.keys(sc.curves).map(function (name) {
        return {type: "scatter", mode: "lines", name: nm(d, "source", name), x: sc.hours_per_year,
                y: sc.curves[name]};
      });
      var crossings = sc.crossings || [];
      if (crossings.length) {
        traces.push({type: "scatter", mode: "markers", name: t(d, "breakeven", "breakeven"),
          x: crossings.map(function (c) { return c.hours_per_year; }),
          y: crossings.map(function (c) { return c.cost_per_gpu_year; }),
          text: crossings.map(function (c) {
            return fill(t(d, "at", "%(sources)s at %(percent)s"), {
              sources: c.sources.map(function (s) { return nm(d, "source", s); }).join(" = "),
              percent: (100 * c.utilization).toFixed(1) + " %"});
          }), marker: {size: 10, symbol: "x"}});
      }
      return {data: traces, layout: layout(t(d, "screening", "Screening curves (cost per GPU-year)"),
        t(d, "hours_per_year", "hours used per year"),
        t(d, "cost_per_gpu_year", "cost per GPU-year"), {hovermode: "closest"})};
    },
    tornado: function (d) {
      var rows = d.uncertainty.tornado.slice().reverse();  // widest swing on top
      var labels = rows.map(function (r) { return r.label; });
      var base = d.uncertainty.base_saving;
      var saving = t(d, "pv_saving", "PV saving");
      function side(key, value, name) {  // a bar from the base-case saving to this end
        return {type: "bar", orientation: "h", name: name, y: labels, base: base,
          x: rows.map(function (r) { return r[key] - base; }),
          customdata: rows.map(function (r) { return [r[value] + " " + r.unit, r[key]]; }),
          hovertemplate: "%{y} = %{customdata[0]}<br>" + saving + " %{customdata[1]:,.0f}" +
                         "<extra>" + name + "</extra>"};
      }
      return {data: [side("saving_low", "low", t(d, "low_value", "low value")),
                     side("saving_high", "high", t(d, "high_value", "high value"))],
        layout: layout(t(d, "tornado", "PV saving of " + d.uncertainty.tornado_judged + " over " +
                         d.uncertainty.tornado_baseline + " by assumption"), saving, "",
                       {barmode: "overlay", hovermode: "closest",
                        margin: {t: 40, r: 20, b: 50, l: 190},
                        shapes: [{type: "line", x0: base, x1: base, y0: 0, y1: 1,
                                  yref: "paper", line: {dash: "dot"}}]})};
    },
    compare: function (d) {
      return {data: d.compare.series.map(function (s) {
        return {type: "scatter", mode: "lines", name: s.name, x: s.x, y: s.y,
                line: {dash: s.dash}};
      }), layout: layout(t(d, "compare", "Cumulative cost of both plans"), t(d, "month", "month"),
                         t(d, "cost", "cost"), {}, "%Y-%m")};
    },
    waterfall: function (d) {
      var w = d.waterfall;
      var l = layout(t(d, "waterfall", "What changed the saving of the recommended plan"), "",
                     t(d, "saving_vs_on_demand", "PV saving vs on demand"),
                     {hovermode: "closest", showlegend: false,
                      margin: {t: 40, r: 20, b: 60, l: 80}});
      // w.range (service/plans/attribution.py): the axis around the levels the bars reach
      // when zero is far below them, so that a change of a few percent is not a hairline
      if (w.range) { Object.assign(l.yaxis, {range: w.range, autorange: false}); }
      return {data: [{type: "waterfall", x: w.labels, y: w.values, measure: w.measures,
                      connector: {line: {dash: "dot"}}}], layout: l};
    },
    // the Plan vs actual page (service/plans/actual_charts.py): the running plan, actual and
    // forecast (the forecast drawn from the last actual month on, continuing the actual), and
    // after a re-plan the forecast re-planned from the same month on
    actual_cumulative: function (d) {
      var c = d.cumulative;
      return {data: [
        {type: "scatter", mode: "lines", name: t(d, "plan", "cumulative plan"), x: c.months,
         y: c.plan, line: {width: 2, color: "#7f7f7f"}},
        {type: "scatter", mode: "lines", name: t(d, "forecast", "cumulative forecast"),
         x: c.months, y: c.forecast, connectgaps: false, line: {width: 2, dash: "dash"}},
        {type: "scatter", mode: "lines+markers", name: t(d, "actual", "cumulative actual"),
         x: c.months, y: c.actual, connectgaps: false, line: {width: 3.5}}].concat(
        // after a re-plan: its running forecast from the last actual month on
        c.replanned ? [{type: "scatter", mode: "lines", connectgaps: false,
                        name: t(d, "replanned", "cumulative forecast re-planned"),
                        x: c.months, y: c.replanned, line: {width: 2, dash: "dot"}}] : []),
        layout: layout(t(d, "cumulative", "Cumulative spend: actual against plan"),
                       t(d, "month", "month"), t(d, "cost", "cost"), null, "%Y-%m")};
    },
    // the year to date from the plan to the actual, one bar per part of the variance
    variance_waterfall: function (d) {
      var w = d.waterfall;
      var l = layout(t(d, "waterfall", "Variance year to date"), "", t(d, "cost", "cost"),
                     {hovermode: "closest", showlegend: false,
                      margin: {t: 40, r: 20, b: 60, l: 80}});
      if (w.range) { Object.assign(l.yaxis, {range: w.range, autorange: false}); }
      return {data: [{type: "waterfall", x: w.labels, y: w.values, measure: w.measures,
                      connector: {line: {dash: "dot"}}}], layout: l};
    },
    timeline: function (d) {
      // capacity of a schedule by month: owned, each commitment cohort, spot and on demand
      // stacked, against the month's demand (peak hour, P90 hour, average)
      var tl = d.timeline, traces = [];
      function stack(name, y, extra) {
        traces.push(Object.assign({type: "scatter", mode: "lines", stackgroup: "capacity",
          name: name, x: tl.months, y: y, line: {width: 0.5}}, extra || {}));
      }
      if (tl.owned_by_type) {   // one band per server type; "owned": a scenario's one type
        Object.keys(tl.owned_by_type).forEach(function (k) {
          var owned = t(d, "owned", "owned servers");
          stack(k === "owned" ? owned : owned + " " + k, tl.owned_by_type[k]);
        });
      } else {                  // a timeline stored before issue 26
        stack(t(d, "owned", "owned servers"), tl.owned);
      }
      tl.cohorts.forEach(function (c) {
        stack(nm(d, "cohort", c.name), c.gpus, c.held ? {fillpattern: {shape: "/"}} : {});
      });
      stack(t(d, "spot", "spot (average)"), tl.spot);
      stack(t(d, "on_demand", "on demand (average)"), tl.on_demand);
      [[t(d, "demand_peak", "demand peak"), tl.demand.peak, "solid"],
       [t(d, "demand_quantile", "demand P90"), tl.demand.p90, "dash"],
       [t(d, "demand_average", "demand average"), tl.demand.mean, "dot"]].forEach(function (line) {
        traces.push({type: "scatter", mode: "lines", name: line[0], x: tl.months, y: line[1],
                     line: {color: "#222", dash: line[2], width: 1.5}});
      });
      return {data: traces, layout: layout(t(d, "timeline", "Capacity by month"),
                                           t(d, "month", "month"), t(d, "gpus", "GPUs"), {},
                                           "%Y-%m")};
    },
    fan: function (d) {
      // the robust plan (issue 27): each demand scenario's capacity (solid) against its own
      // demand peak (dotted), one colour a scenario. service/plans/fan_chart.py (issue 39,
      // item 4): f.top stops the axis above capacity when a path's peak is far higher, that
      // peak labelled with its value (f.peaks); capacity lines one inside another (sc.width)
      // and the hover naming the scenarios of the same capacity (sc.same)
      var f = d.fan, traces = [], annotations = [];
      var colours = ["#1565c0", "#2e7d32", "#c62828", "#6a1b9a", "#ef6c00", "#00838f",
                     "#4e342e", "#ad1457", "#558b2f"];
      f.scenarios.forEach(function (sc, i) {
        var c = colours[i % colours.length];
        traces.push({type: "scatter", mode: "lines", name: fill(t(d, "capacity_of",
          "capacity, %(name)s"), {name: sc.name}), x: f.months, y: sc.capacity,
          customdata: (sc.same || []).map(function (s) { return s ? " (" + s + ")" : ""; }),
          hovertemplate: "%{y:,.1f}%{customdata}",
          line: {color: c, width: sc.width || 2, shape: "hv"}});
        traces.push({type: "scatter", mode: "lines", name: fill(t(d, "demand_of",
          "demand peak, %(name)s"), {name: sc.name}), x: f.months, y: sc.demand_peak,
          hovertemplate: "%{y:,.0f}", line: {color: c, width: 1, dash: "dot"}});
      });
      (f.peaks || []).forEach(function (p, k) {   // at the top edge, where the path leaves
        annotations.push({x: p.month, y: f.top, xref: "x", yref: "y", text: plain(p.text),
          showarrow: true, arrowhead: 2, arrowcolor: colours[p.index % colours.length],
          ax: 0, ay: 26 + 20 * k, font: {color: colours[p.index % colours.length]},
          bgcolor: "rgba(255,255,255,0.85)"});
      });
      var l = layout(t(d, "fan", "Capacity by demand scenario"), t(d, "month", "month"),
                     t(d, "gpus", "GPUs"), {annotations: annotations}, "%Y-%m");
      if (f.top) { Object.assign(l.yaxis, {range: [0, f.top], autorange: false}); }
      return {data: traces, layout: l};
    },
    cash_budget: function (d) {
      var c = d.cash;
      var traces = [{type: "bar", name: t(d, "cash", "purchases and upfront payments"),
                     x: c.years, y: c.amounts}];
      if (c.budget !== null) {
        traces.push({type: "scatter", mode: "lines", name: t(d, "budget", "yearly budget"),
                     x: c.years, y: c.years.map(function () { return c.budget; }),
                     line: {dash: "dash", color: "#b71c1c"}});
      }
      return {data: traces, layout: layout(t(d, "cash_budget", "Cash by year"),
                                           t(d, "year", "year"), c.currency,
                                           {xaxis: axis(t(d, "year", "year"),
                                                        {type: "category"})})};
    },
    histogram: function (d) {
      var h = d.uncertainty.histogram;
      var mids = h.counts.map(function (_, i) { return (h.edges[i] + h.edges[i + 1]) / 2; });
      return {data: [{type: "bar", name: t(d, "draws", "draws"), x: mids, y: h.counts}],
        layout: layout(t(d, "histogram", "Monte Carlo: PV saving of " + d.uncertainty.judged +
                         " over " + d.uncertainty.baseline), t(d, "pv_saving", "PV saving"),
                       t(d, "draws", "draws"), {bargap: 0.02, hovermode: "closest"})};
    }
  };

  // Korean reads large numbers by 만 (10^4) and 억 (10^8), not by thousands: Plotly's own
  // ticks ("20B", "500M") are relabelled once drawn, at the values Plotly chose.
  function koreanNumber(v) {
    var a = Math.abs(v);
    function short(x) { return (Math.round(x * 10) / 10).toLocaleString("ko-KR"); }
    if (a >= 1e8) { return short(v / 1e8) + "억"; }
    if (a >= 1e4) { return short(v / 1e4) + "만"; }
    return v.toLocaleString("ko-KR");
  }

  function koreanTicks(el) {
    if (document.documentElement.lang !== "ko" || !el._fullLayout) { return null; }
    var update = {};
    Object.keys(el._fullLayout).forEach(function (key) {
      var axis = el._fullLayout[key];
      if (!/^[xy]axis\d*$/.test(key) || axis.type !== "linear" || !axis._vals) { return; }
      var values = axis._vals.map(function (tick) { return tick.x; });
      if (!values.some(function (v) { return Math.abs(v) >= 1e4; })) { return; }
      update[key + ".tickmode"] = "array";
      update[key + ".tickvals"] = values;
      update[key + ".ticktext"] = values.map(koreanNumber);
    });
    return Object.keys(update).length ? window.Plotly.relayout(el, update) : null;
  }

  // Plotly renders a subset of HTML in every text it draws (<a href>, <b>, <br>): a scenario
  // or server type named "<a href=...>" became a live link in a legend (issue 40). Names and
  // labels are the users' words, never markup: each is drawn as the characters typed. Plotly
  // decodes the entities back to those characters on the page.
  function plain(value) {
    if (typeof value === "string") {
      return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
    }
    return Array.isArray(value) ? value.map(plain) : value;
  }

  function plainTraces(traces) {
    traces.forEach(function (trace) {
      ["name", "text", "hovertext", "customdata", "x", "y"].forEach(function (key) {
        if (key in trace) { trace[key] = plain(trace[key]); }
      });
    });
    return traces;
  }

  function draw(el, data) {
    var figure = BUILDERS[el.dataset.chart](data);
    plainTraces(figure.data);
    // react() redraws in place: the live plan calls it on every edit
    return window.Plotly.react(el, figure.data, placeLegend(el, figure.layout),
                               {responsive: true, displaylogo: false})
      .then(function () { fitLegendBelow(el); return koreanTicks(el); });
  }

  function drawCharts() {
    document.querySelectorAll("[data-chart]").forEach(function (el) {
      var source = document.getElementById(el.dataset.source);
      var data = source && JSON.parse(source.textContent);
      if (!data || !window.Plotly) { return; }   // null: a plan still computing
      draw(el, data);
    });
  }

  window.buyrentCharts = {draw: draw, builders: BUILDERS};

  function busyForms() {
    // forms with data-progress show the server's phases instead (progress.js)
    document.querySelectorAll("form[data-busy]:not([data-progress])").forEach(function (form) {
      form.addEventListener("submit", function () {
        var note = document.createElement("p");
        note.className = "busy";
        note.setAttribute("role", "status");
        note.textContent = form.dataset.busy;
        form.appendChild(note);
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    drawCharts();
    busyForms();
  });
})();
