// The scenario form: pydantic's messages as you type, the live plan (edit page), how many
// values of each section differ from the defaults, and money shown with thousands separators.
// Served from static/ (the Content-Security-Policy allows no inline script).
(function () {
  "use strict";

  var DELAY_MS = 40;  // wait for a pause in typing, then ask the server once

  function byId(id) { return document.getElementById(id); }

  function numberOrNull(text) {
    var t = String(text).replace(/[\s\u00a0\u202f_%]/g, "");
    if (/^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$/.test(t)) { t = t.replace(/,/g, ""); }
    if (t === "" || isNaN(Number(t))) { return null; }
    return Number(t);
  }

  function sameValue(a, b) {
    a = String(a).trim(); b = String(b).trim();
    if (a === b) { return true; }
    var na = numberOrNull(a), nb = numberOrNull(b);
    if (na !== null && nb !== null) { return na === nb; }
    return a.split(",").map(function (p) { return p.trim(); }).join(",") ===
           b.split(",").map(function (p) { return p.trim(); }).join(",");
  }

  window.buyrentSameValue = sameValue;   // static/js/presets.js compares inputs the same way

  function isChanged(box) {
    var input = box.querySelector("input, select");
    if (!input) { return false; }
    if (input.type === "checkbox") { return input.checked !== (box.dataset["default"] === "true"); }
    return !sameValue(input.value, box.dataset["default"] || "");
  }

  var word = window.buyrentWord;   // static/js/words.js

  function countText(n) {
    return n === 1 ? word("changed_one", "%(count)s value differs from the defaults", {count: n})
                   : word("changed_many", "%(count)s values differ from the defaults", {count: n});
  }

  function setCount(el, n) {
    if (el) { el.dataset.changed = String(n); el.textContent = countText(n); }
  }

  function updateCounts(form) {
    var total = 0;
    form.querySelectorAll(".group").forEach(function (group) {
      var n = 0;
      group.querySelectorAll(".field").forEach(function (box) {
        var changed = isChanged(box);
        box.classList.toggle("changed", changed);
        if (changed) { n += 1; }
      });
      var key = group.id.replace(/^section-/, "");
      setCount(byId("changed-" + key), n);
      if (key !== "essentials") { total += n; }
    });
    setCount(byId("changed-advanced"), total);
  }

  function groupMoney(input) {
    var n = numberOrNull(input.value);
    if (n === null || input.value.indexOf("e") >= 0) { return; }
    var parts = input.value.replace(/[\s,_]/g, "").split(".");
    var whole = parts[0].replace(/^([+-]?)0+(\d)/, "$1$2");
    var sign = whole.charAt(0) === "-" ? "-" : "";
    whole = whole.replace(/^[+-]/, "").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    input.value = sign + whole + (parts.length > 1 ? "." + parts[1] : "");
  }

  function showErrors(form, body) {
    var errors = body.errors || {}, sectionErrors = body.section_errors || {};
    form.querySelectorAll(".field").forEach(function (box) {
      var name = box.id.replace(/^field-/, "");
      var message = errors[name] || "";
      var p = byId("error-" + name), input = byId(name);
      if (p) { p.textContent = message; p.hidden = !message; }
      box.classList.toggle("invalid", !!message);
      if (input) {
        if (message) { input.setAttribute("aria-invalid", "true"); }
        else { input.removeAttribute("aria-invalid"); }
      }
    });
    form.querySelectorAll(".group-errors").forEach(function (box) {
      var key = box.id.replace(/^group-errors-/, "");
      box.textContent = "";
      (sectionErrors[key] || []).forEach(function (message) {
        var p = document.createElement("p");
        p.className = "error";
        p.setAttribute("role", "alert");
        p.textContent = message;
        box.appendChild(p);
      });
    });
    // a message inside a closed section opens it, so it can be seen
    Object.keys(errors).concat(Object.keys(sectionErrors)).forEach(function (name) {
      var el = byId("field-" + name) || byId("group-errors-" + name);
      for (var d = el && el.closest("details"); d; d = d.parentElement.closest("details")) {
        d.open = true;
      }
    });
    var n = Object.keys(errors).length + Object.keys(sectionErrors).length;
    byId("form-status").textContent = !n ? "" : n === 1 ?
      word("problems_one", "%(count)s problem to fix before saving.", {count: n}) :
      word("problems_many", "%(count)s problems to fix before saving.", {count: n});
  }

  function showPlan(body, seq, editedAt) {
    var status = byId("live-status");
    if (body.plan_error) {
      status.textContent = body.plan_error;
      status.classList.add("error");
      return;
    }
    status.classList.remove("error");
    if (!body.valid) {
      status.textContent = word("fix_to_update",
        "Fix the values marked in the form to update the plan.", {});
      return;
    }
    byId("live-cards").innerHTML = body.cards_html;  // rendered (and escaped) by the server
    byId("live-recommendation").textContent = body.recommendation;
    byId("live-cumulative-summary").textContent = body.summary;
    byId("live-charts").textContent = JSON.stringify(body.charts);
    var chart = byId("chart-live-cumulative");
    if (window.buyrentCharts && window.Plotly) { window.buyrentCharts.draw(chart, body.charts); }
    status.textContent = body.stage === "repriced" ?
      word("reoptimizing", "Updated for the form's values (not saved), the last optimum " +
           "re-priced; re-optimizing...", {}) :
      body.reoptimized ?
      word("reoptimized", "Updated for the values in the form (not saved), re-optimized.", {}) :
      word("updated", "Updated for the values in the form (not saved).", {});
    status.dataset.stage = body.reoptimized ? "reoptimized" : (body.stage || "");
    // from the edit to the new numbers on screen: what the latency benchmark reads
    status.dataset.ms = String(Math.round(window.performance.now() - editedAt));
    status.dataset.seq = String(seq);
  }

  function watch(form) {
    var url = form.dataset.previewUrl || form.dataset.validateUrl;
    var live = !!form.dataset.previewUrl;
    var timer = null, sent = 0, shown = 0, editedAt = window.performance.now();

    function send() {
      timer = null;
      var since = editedAt;
      var seq = ++sent;
      form.dataset.pending = String(seq);
      var request = new XMLHttpRequest();
      request.open("POST", url);
      request.setRequestHeader("Accept", "application/json");
      request.responseType = "json";
      request.onload = function () {
        if (seq < shown || !request.response) { return; }
        if (request.status !== 200) {  // an error answered in JSON: say it where the plan goes
          var error = request.response.error;
          if (live && error) { showPlan({plan_error: error.message}, seq, since); }
          return;
        }
        shown = seq;
        showErrors(form, request.response);
        if (live && request.response.pending) {   // a heavy plan: only its job answers
          byId("live-status").textContent = word("job_waiting", "Waiting for a worker " +
            "(%(state)s)...", {state: "queued"});
        } else if (live) { showPlan(request.response, seq, since); }
        if (live && request.response.job_url) { follow(request.response.job_url, seq); }
        form.dataset.done = String(seq);
        // "shown": the page shows the answer to the last edit (tests and benchmarks wait on it)
        if (seq === sent && timer === null) { form.dataset.state = "shown"; }
      };
      request.send(new FormData(form));
    }

    // The preview job re-optimizing these values (static optima and staged schedule): poll it with
    // back-off and show its plan if no newer edit was sent meanwhile.
    function follow(jobUrl, seq) {
      var delay = 300;
      function poll() {
        if (seq !== sent) { return; }            // a newer edit: its own job answers
        var r = new XMLHttpRequest();
        r.open("GET", jobUrl);
        r.setRequestHeader("Accept", "application/json");
        r.responseType = "json";
        r.onload = function () {
          var body = r.response;
          if (seq !== sent || r.status !== 200 || !body) { return; }
          if (body.cards_html) {
            body.valid = true;
            body.reoptimized = true;
            showPlan(body, seq, window.performance.now());
            form.dataset.job = "done";
            return;
          }
          if (body.job && body.job.state === "failed") {
            showPlan({plan_error: word("job_failed", "The computation failed: %(reason)s",
                                       {reason: body.job.error || ""})}, seq, 0);
            return;
          }
          delay = Math.min(delay * 1.5, 3000);
          window.setTimeout(poll, delay);
        };
        r.send();
      }
      form.dataset.job = "running";
      window.setTimeout(poll, delay);
    }

    function changed(event) {
      if (event.target.name === "idempotency_key") { return; }
      updateCounts(form);
      form.dataset.state = "editing";
      editedAt = window.performance.now();
      window.clearTimeout(timer);
      timer = window.setTimeout(send, DELAY_MS);
    }

    // a slider (the robust plan's risk weight) moves its number input and follows it; the
    // number input is what is posted and what the live preview reads
    form.querySelectorAll("input[data-slider-for]").forEach(function (slider) {
      var input = byId(slider.dataset.sliderFor);
      slider.addEventListener("input", function (event) {
        event.stopPropagation();
        input.value = slider.value;
        input.dispatchEvent(new Event("input", {bubbles: true}));
      });
      input.addEventListener("input", function () {
        if (input.value !== "") { slider.value = input.value; }
      });
    });
    form.addEventListener("input", changed);
    form.addEventListener("change", changed);
    form.querySelectorAll("input.money").forEach(function (input) {
      input.addEventListener("blur", function () { groupMoney(input); });
    });
    if (live) { send(); }  // the form may differ from the saved revision (preset, workbook)
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = byId("scenario-form");
    if (form) { watch(form); }
    // a review comment links to its field (#field-owned.pue): open the sections around it
    var target = window.location.hash && byId(decodeURIComponent(window.location.hash.slice(1)));
    for (var d = target && target.closest("details"); d; d = d.parentElement.closest("details")) {
      d.open = true;
    }
    if (target) { target.scrollIntoView(); }
  });
})();
