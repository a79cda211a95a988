// Progress of long requests: the upload's bytes, then the server's phase (reading, planning,
// uncertainty, workbook), polled from /scenarios/progress/<id> while the request runs.
// Forms and links opt in with data-progress; each request gets a fresh random id.
(function () {
  "use strict";

  var word = window.buyrentWord;   // static/js/words.js

  var POLL_MS = 250;

  function newId() {
    var bytes = new Uint8Array(12);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }

  function progressUrl(id) {
    return document.body.dataset.progressUrl.replace("__id__", id);
  }

  function panel(box) {
    box.hidden = false;
    box.textContent = "";
    var bar = document.createElement("progress");
    bar.max = 1;
    bar.setAttribute("aria-label", word("progress", "Progress", {}));
    var text = document.createElement("span");
    text.className = "phase";
    box.appendChild(bar);
    box.appendChild(text);
    return {bar: bar, text: text};
  }

  function poll(id, view) {
    var stopped = false;
    function once() {
      if (stopped) { return; }
      var request = new XMLHttpRequest();
      request.open("GET", progressUrl(id));
      request.responseType = "json";
      request.onload = function () {
        var state = request.response || {};
        if (state.phase) {
          view.text.textContent = state.text + (state.done ? "." : "...");
          view.bar.removeAttribute("value");  // indeterminate while the server works
          if (state.done) { view.bar.value = 1; stopped = true; return; }
        }
        window.setTimeout(once, POLL_MS);
      };
      request.onerror = function () { window.setTimeout(once, POLL_MS * 4); };
      request.send();
    }
    once();
    return function () { stopped = true; };
  }

  function hiddenId(form) {
    var input = form.querySelector("input[name=progress_id]");
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = "progress_id";
      form.appendChild(input);
    }
    input.value = newId();
    return input.value;
  }

  function formBox(form) {
    return form.querySelector(".progress") || form.appendChild(
      Object.assign(document.createElement("div"), {className: "progress"}));
  }

  // Uploads go through XMLHttpRequest to see their bytes; the server answers JSON.
  function upload(form, event) {
    event.preventDefault();
    var id = hiddenId(form);
    var view = panel(formBox(form));
    var stop = null;
    var request = new XMLHttpRequest();
    request.open("POST", form.action || window.location.href);
    request.setRequestHeader("Accept", "application/json");
    request.responseType = "json";
    request.upload.onprogress = function (e) {
      if (!e.lengthComputable) { return; }
      view.bar.value = e.loaded / e.total;
      view.text.textContent = word("uploading", "Uploading: %(loaded)s of %(total)s bytes",
        {loaded: e.loaded.toLocaleString(), total: e.total.toLocaleString()});
    };
    request.upload.onload = function () {
      view.text.textContent = word("uploaded", "Uploaded; waiting for the server...", {});
      stop = poll(id, view);
    };
    request.onload = function () {
      if (stop) { stop(); }
      var body = request.response || {};
      if (request.status === 200 && body.location) {
        view.text.textContent = word("opening_preview", "Done: opening the preview...", {});
        window.location.assign(body.location);
        return;
      }
      if (request.status === 200 && body.result_html) {  // commitments: shown, not stored
        view.text.textContent = word("read", "Read.", {});
        document.getElementById("upload-errors").innerHTML = body.result_html;
        return;
      }
      view.text.textContent = word("not_accepted", "The file was not accepted.", {});
      document.getElementById("upload-errors").innerHTML = body.error_html ||
        "<p class='error' role='alert'>" +
        word("upload_failed", "The upload failed (status %(status)s).", {status: request.status}) +
        "</p>";
    };
    request.onerror = function () {
      if (stop) { stop(); }
      view.text.textContent = word("connection_lost",
        "The upload failed: the connection was lost.", {});
    };
    request.send(new FormData(form));
  }

  // Other forms submit as usual; the page polls until the next page replaces it.
  function submitted(form, event) {
    if (form.dataset.upload !== undefined) { upload(form, event); return; }
    var id = hiddenId(form);
    poll(id, panel(formBox(form)));
  }

  // Downloads (the workbook): the link gets the id, the page stays and polls until done.
  function download(link) {
    var id = newId();
    var url = new URL(link.href, window.location.href);
    url.searchParams.set("progress_id", id);
    link.href = url.toString();
    var box = document.getElementById(link.dataset.progress);
    poll(id, panel(box));
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form[data-progress]").forEach(function (form) {
      form.addEventListener("submit", function (event) { submitted(form, event); });
    });
    document.querySelectorAll("a[data-progress]").forEach(function (link) {
      link.addEventListener("click", function () { download(link); });
    });
  });
})();
