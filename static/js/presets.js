// The scenario form's preset choosers, applied in the page: a local context and a cloud price
// preset, in either order, without a reload and without losing what was typed.
// Progressive enhancement: without this script the choosers are a GET form that reloads the
// page with the presets applied to the defaults or the saved revision.
// The server does the arithmetic (POST the form to /scenarios/presets/<id>.json,
// service/presets/stack.py): each input the preset changes comes back with its new text,
// already rounded and written as the form shows values (percent as percent, money grouped).
// This script asks first when a preset would replace a value typed here ("typed": the input
// differs from the value it had when the page loaded, or from the last preset put in it),
// sets the inputs, marks them, lists the changes and records the preset for the saved revision.
(function () {
  "use strict";

  var word = window.buyrentWord;   // static/js/words.js

  function byId(id) { return document.getElementById(id); }

  function same(a, b) {
    return window.buyrentSameValue ? window.buyrentSameValue(a, b) : String(a) === String(b);
  }

  function valueOf(el) {
    return el.type === "checkbox" ? (el.checked ? "true" : "false") : el.value;
  }

  function loadedValue(el) {
    if (el.type === "checkbox") { return el.defaultChecked ? "true" : "false"; }
    if (el.tagName === "SELECT") {
      var chosen = Array.prototype.filter.call(el.options, function (o) {
        return o.defaultSelected;
      });
      return chosen.length ? chosen[0].value : (el.options[0] ? el.options[0].value : "");
    }
    return el.defaultValue;
  }

  function typed(el) {
    var base = el.dataset.preset !== undefined ? el.dataset.preset : loadedValue(el);
    return !same(valueOf(el), base);
  }

  function setValue(el, text) {
    if (el.type === "checkbox") { el.checked = text === "true"; } else { el.value = text; }
    el.dataset.preset = text;
  }

  // a row a preset fills that the page does not have yet: the table's "add a row" button
  // (static/js/rows.js) adds rows with the next free number, as the server counted them
  function ensureInput(name) {
    var m = /^(.*)\.(\d+)\.[^.]+$/.exec(name);
    for (var tries = 0; !byId(name) && m && tries < 10; tries += 1) {
      var add = byId("add-row-" + m[1]);
      if (!add || add.disabled) { break; }
      add.click();
    }
    return byId(name);
  }

  function mark(el, text) {
    var box = el.closest(".field");
    if (!box || !text) { return; }
    box.classList.add("preset-filled");
    var note = box.querySelector("p.preset");
    if (!note) {
      note = document.createElement("p");
      note.className = "preset";
      box.appendChild(note);
    }
    note.textContent = text;
  }

  // the presets the saved revision records, in the order they were applied: one of each
  // kind (another price preset replaces the first; the same one again keeps its place)
  function record(kind, id) {
    var holder = byId("preset-record");
    var kept = false;
    holder.querySelectorAll("input[data-kind='" + kind + "']").forEach(function (input) {
      if (input.value === id) { kept = true; } else { input.remove(); }
    });
    if (kept) { return; }
    var input = document.createElement("input");
    input.type = "hidden";
    input.name = "preset";
    input.value = id;
    input.dataset.kind = kind;
    holder.appendChild(input);
  }

  function showNote(kind, html) {
    var notes = byId("preset-notes");
    var old = byId("preset-note-" + kind);
    var holder = document.createElement("div");
    holder.innerHTML = html;   // rendered (and escaped) by the server
    var note = holder.querySelector("p");
    if (!note) { return; }
    if (old) { notes.replaceChild(note, old); } else { notes.appendChild(note); }
  }

  function summaryOf(kind) {
    var box = byId("preset-summary");
    var part = byId("preset-summary-" + kind);
    if (!part) {
      part = document.createElement("div");
      part.id = "preset-summary-" + kind;
      part.dataset.kind = kind;
      var head = document.createElement("p");
      head.id = "preset-changed-" + kind;
      head.className = "preset-changed";
      var list = document.createElement("ul");
      list.id = "preset-changes-" + kind;
      part.appendChild(head);
      part.appendChild(list);
      // the context first, then the price, whatever order they were applied in
      if (kind === "context") { box.insertBefore(part, box.firstChild); }
      else { box.appendChild(part); }
    }
    box.hidden = false;
    return part;
  }

  function said(change) { return change.label + ": " + change.old_text + " \u2192 " + change.new_text; }

  function listChanges(kind, label, body) {
    var part = summaryOf(kind);
    byId("preset-changed-" + kind).textContent = label + " \u00b7 " + body.summary;
    var list = byId("preset-changes-" + kind);
    list.textContent = "";
    body.changes.forEach(function (change) {
      var item = document.createElement("li");
      item.textContent = said(change);
      item.dataset.name = change.name;
      list.appendChild(item);
    });
    return part;
  }

  function say(text) {
    var status = byId("preset-status");
    if (status) { status.textContent = text; }
  }

  function setAll(form, select, body) {
    body.changes.forEach(function (change) {
      var el = ensureInput(change.name);
      if (!el) { return; }
      setValue(el, change["new"]);
      mark(el, change.mark);
    });
    Object.keys(body.units).forEach(function (name) {
      var unit = byId("unit-" + name);
      if (unit) { unit.textContent = body.units[name]; }
    });
    record(body.kind, body.id);
    showNote(body.kind, body.note_html);
    listChanges(body.kind, select.options[select.selectedIndex].text, body);
    select.dataset.applied = body.id;
    say("");
    // form.js counts the changed values again and re-validates (and re-plans)
    form.dispatchEvent(new Event("change", {bubbles: true}));
  }

  // Ask before replacing typed values: an in-page dialog listing them (window.confirm where
  // the browser has no <dialog>). Cancel changes nothing.
  function confirmFirst(changes, yes, no) {
    var dialog = byId("preset-confirm");
    var list = byId("preset-confirm-list");
    if (!dialog || typeof dialog.showModal !== "function") {
      var text = changes.map(said).join("\n");
      if (window.confirm(byId("preset-confirm-title").textContent + "\n\n" + text)) { yes(); }
      else { no(); }
      return;
    }
    list.textContent = "";
    changes.forEach(function (change) {
      var item = document.createElement("li");
      item.textContent = said(change);
      list.appendChild(item);
    });
    var answered = false;
    function answer(replace) {
      if (answered) { return; }
      answered = true;
      dialog.close();
      if (replace) { yes(); } else { no(); }
    }
    byId("preset-confirm-replace").onclick = function () { answer(true); };
    byId("preset-confirm-cancel").onclick = function () { answer(false); };
    dialog.oncancel = function (event) { event.preventDefault(); answer(false); };  // Escape
    dialog.showModal();
    byId("preset-confirm-cancel").focus();
  }

  function apply(chooser, form, select) {
    var id = select.value;
    if (!id) { return; }
    chooser.dataset.state = "applying";
    say(word("preset_applying", "Applying the preset...", {}));
    var request = new XMLHttpRequest();
    request.open("POST", chooser.dataset.applyUrl.replace(/ID\.json$/, encodeURI(id) + ".json"));
    request.setRequestHeader("Accept", "application/json");
    request.responseType = "json";
    request.onload = function () {
      var body = request.response;
      if (request.status !== 200 || !body) {
        var message = body && body.error && body.error.message;
        say(message || word("preset_failed", "The preset could not be applied (status " +
                            "%(status)s).", {status: request.status}));
        select.value = select.dataset.applied || "";
        chooser.dataset.state = "failed";
        return;
      }
      var overwritten = body.changes.filter(function (change) {
        var el = byId(change.name);
        return !change.converted && el && typed(el);
      });
      function done() { setAll(form, select, body); chooser.dataset.state = "applied"; }
      function kept() {
        select.value = select.dataset.applied || "";
        say(word("preset_cancelled", "The preset was not applied: nothing changed.", {}));
        chooser.dataset.state = "cancelled";
      }
      if (overwritten.length) { confirmFirst(overwritten, done, kept); } else { done(); }
    };
    request.onerror = function () {
      say(word("preset_failed", "The preset could not be applied (status %(status)s).",
               {status: 0}));
      chooser.dataset.state = "failed";
    };
    request.send(new FormData(form));   // the form's csrf_token travels with it
  }

  document.addEventListener("DOMContentLoaded", function () {
    var chooser = byId("preset-form"), form = byId("scenario-form");
    if (!chooser || !form || !chooser.dataset.applyUrl) { return; }
    var status = document.createElement("p");
    status.id = "preset-status";
    status.className = "muted";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    chooser.appendChild(status);
    var selects = chooser.querySelectorAll("select[data-kind]");
    selects.forEach(function (select) {
      select.dataset.applied = select.value;   // applied by the server (GET ?preset=...)
      select.addEventListener("change", function () { apply(chooser, form, select); });
    });
    chooser.addEventListener("submit", function (event) {
      event.preventDefault();   // applied here, so typed values stay
      var button = event.submitter;
      var select = button && button.dataset.select ? byId(button.dataset.select) : selects[0];
      if (select) { apply(chooser, form, select); }
    });
    chooser.dataset.ready = "true";
  });
})();
