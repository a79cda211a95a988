// "Add a row" and "Remove" buttons for the scenario form's tables of rows (servers owned,
// signed commitments, schedule decisions, commitment offers).
// Progressive enhancement: without this script the form offers one blank row per table and a
// "remove" checkbox per row, and posts the same names. A new row is the table's <template>
// (rendered by the server from the schema) with its row slot replaced by the next free index;
// a removed row is taken out of the form, so it is not posted (gaps in the indices are fine:
// service/forms/scenario.py reads rows up to the highest index and skips missing ones).
(function () {
  "use strict";

  var SLOT = /__row__/g;

  var word = window.buyrentWord;   // static/js/words.js

  function rows(table) {
    return Array.prototype.filter.call(table.children, function (el) {
      return el.classList && el.classList.contains("table-row");
    });
  }

  function announce(table, text) {
    var status = table.querySelector(".rows-status");
    status.textContent = "";
    window.setTimeout(function () { status.textContent = text; }, 30);
  }

  function renumber(table) {
    var list = rows(table);
    list.forEach(function (row, i) {
      var n = row.querySelector(".row-number");
      if (n) { n.textContent = String(i + 1); }
      var button = row.querySelector("button.remove-row");
      if (button) {
        button.setAttribute("aria-label", word("remove_row_label", "Remove %(table)s row %(number)s",
                                                {table: table.dataset.title, number: i + 1}));
      }
    });
    var add = table.querySelector("button.add-row");
    var full = list.length >= Number(table.dataset.maxRows);
    add.disabled = full;
    add.title = full ? word("at_most_rows", "At most %(count)s rows",
                           {count: table.dataset.maxRows}) : "";
  }

  function changed(table) {
    // the form's own script re-validates (and re-plans on the edit page) on change
    var form = table.closest("form");
    if (form) { form.dispatchEvent(new Event("change", {bubbles: true})); }
  }

  function enhanceRow(table, row) {
    var box = row.querySelector('.field[id$=".remove"]');
    if (box) { box.hidden = true; }   // the button below does what the checkbox did
    var button = document.createElement("button");
    button.type = "button";
    button.className = "remove-row";
    button.textContent = word("remove_row", "Remove", {});
    button.addEventListener("click", function () {
      row.remove();
      renumber(table);
      announce(table, word("row_removed", "%(table)s: row removed, %(count)s left.",
                           {table: table.dataset.title, count: rows(table).length}));
      table.querySelector("button.add-row").focus();
      changed(table);
    });
    row.appendChild(button);
  }

  function nextIndex(table) {
    var next = Number(table.dataset.next || 0);
    rows(table).forEach(function (row) {
      next = Math.max(next, Number(row.dataset.row) + 1);
    });
    table.dataset.next = String(next + 1);
    return next;
  }

  function addRow(table, template) {
    if (rows(table).length >= Number(table.dataset.maxRows)) { return; }
    var index = String(nextIndex(table));
    var holder = document.createElement("div");
    holder.innerHTML = template.innerHTML.replace(SLOT, index);  // server-rendered, escaped
    var row = holder.querySelector(".table-row");
    table.insertBefore(row, template);
    enhanceRow(table, row);
    renumber(table);
    announce(table, word("row_added", "%(table)s: row %(number)s added.",
                         {table: table.dataset.title, number: rows(table).length}));
    var first = row.querySelector("input:not([type=checkbox]), select");
    if (first) { first.focus(); }
  }

  function enhance(table) {
    var template = table.querySelector("template.row-template");
    if (!template) { return; }
    var status = document.createElement("p");
    status.className = "rows-status visually-hidden";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");
    var add = document.createElement("button");
    add.type = "button";
    add.className = "add-row";
    add.id = "add-row-" + table.dataset.path;
    add.textContent = word("add_row", "Add a row: %(table)s", {table: table.dataset.title});
    add.addEventListener("click", function () { addRow(table, template); });
    table.appendChild(add);
    table.appendChild(status);
    rows(table).forEach(function (row) { enhanceRow(table, row); });
    renumber(table);
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".row-table[data-path]").forEach(enhance);
  });
})();
