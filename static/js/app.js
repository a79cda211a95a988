// buyrent pages: charts from <script type="application/json"> blocks (no inline scripts, CSP),
// the preset chooser and a busy note on forms that compute a plan.
(function () {
  "use strict";

  // the legend sits below the axis title (small charts overlapped them)
  var LAYOUT = {margin: {t: 40, r: 20, b: 50, l: 70}, hovermode: "x unified",
                legend: {orientation: "h", y: -0.18, yanchor: "top"}, font: {size: 12}};

  // xFormat: dates on the x axis as numbers ("%Y-%m"), never as English month names.
  function layout(title, xTitle, yTitle, extra, xFormat) {
    var xaxis = {title: {text: xTitle}};
    if (xFormat) { xaxis.tickformat = xFormat; xaxis.hoverformat = xFormat; }
    var l = Object.assign({}, LAYOUT, {title: {text: title},
      xaxis: xaxis, yaxis: {title: {text: yTitle}}});
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
      return {data: Object.keys(d.cumulative).map(function (name) {
        return {type: "scatter", mode: "lines", name: nm(d, "strategy", name), x: d.months,
                y: d.cumulative[name]};
      }), layout: layout(t(d, "cumulative", "Cumulative cost by strategy"), t(d, "month", "month"),
                         t(d, "cost", "cost"), null, "%Y-%m")};
    },
    by_source: function (d) {
      var lines = d.by_source.lines;
      return {data: Object.keys(lines).map(function (name) {
        return {type: "bar", name: nm(d, "line", name), x: d.months, y: lines[name]};
      }), layout: layout(t(d, "by_source", "Monthly cost by source: " + d.by_source.strategy),
                         t(d, "month", "month"), t(d, "cost", "cost"), {barmode: "relative"},
                         "%Y-%m")};
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
      return {data: [{type: "waterfall", x: w.labels, y: w.values, measure: w.measures,
                      connector: {line: {dash: "dot"}}}],
        layout: layout(t(d, "waterfall", "What changed the saving of the recommended plan"), "",
                       t(d, "saving_vs_on_demand", "PV saving vs on demand"),
                       {hovermode: "closest", showlegend: false,
                       margin: {t: 40, r: 20, b: 140, l: 80}})};
    },
    timeline: function (d) {
      // capacity of a schedule by month: owned, each commitment cohort, spot and on demand
      // stacked, against the month's demand (peak hour, P90 hour, average)
      var t = d.timeline, traces = [];
      function stack(name, y, extra) {
        traces.push(Object.assign({type: "scatter", mode: "lines", stackgroup: "capacity",
          name: name, x: t.months, y: y, line: {width: 0.5}}, extra || {}));
      }
      stack("owned servers", t.owned);
      t.cohorts.forEach(function (c) {
        stack((c.held ? "" : "committed ") + c.name, c.gpus,
              c.held ? {fillpattern: {shape: "/"}} : {});
      });
      stack("spot (average)", t.spot);
      stack("on demand (average)", t.on_demand);
      var q = "P" + Math.round(t.quantile * 100);
      [["demand peak", t.demand.peak, "solid"], ["demand " + q, t.demand.p90, "dash"],
       ["demand average", t.demand.mean, "dot"]].forEach(function (line) {
        traces.push({type: "scatter", mode: "lines", name: line[0], x: t.months, y: line[1],
                     line: {color: "#222", dash: line[2], width: 1.5}});
      });
      return {data: traces, layout: layout("Capacity by month: " + d.cash.strategy, "month",
                                           "GPUs")};
    },
    cash_budget: function (d) {
      var c = d.cash;
      var traces = [{type: "bar", name: "purchases and upfront payments", x: c.years,
                     y: c.amounts}];
      if (c.budget !== null) {
        traces.push({type: "scatter", mode: "lines", name: "yearly budget", x: c.years,
                     y: c.years.map(function () { return c.budget; }),
                     line: {dash: "dash", color: "#b71c1c"}});
      }
      return {data: traces, layout: layout("Cash by year: " + c.strategy, "year",
                                           c.currency, {xaxis: {type: "category",
                                           title: {text: "year"}}})};
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

  function draw(el, data) {
    var figure = BUILDERS[el.dataset.chart](data);
    // react() redraws in place: the live plan calls it on every edit
    window.Plotly.react(el, figure.data, figure.layout,
                        {responsive: true, displaylogo: false});
  }

  function drawCharts() {
    document.querySelectorAll("[data-chart]").forEach(function (el) {
      var source = document.getElementById(el.dataset.source);
      if (!source || !window.Plotly) { return; }
      draw(el, JSON.parse(source.textContent));
    });
  }

  window.buyrentCharts = {draw: draw, builders: BUILDERS};

  function presetChooser() {
    var select = document.getElementById("preset");
    if (select) {
      select.addEventListener("change", function () { select.form.submit(); });
    }
  }

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
    presetChooser();
    busyForms();
  });
})();
