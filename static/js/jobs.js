// The plan page while its plan job runs (templates/plans/_job.html): poll the job with
// back-off (0.5 s growing to 5 s) and reload the page when the job has stored more (a new
// stage, complete, or failed), so that each stage shows as it arrives.
(function () {
  "use strict";
  // pages waiting on a job without a poller of their own (the compare page's waterfall):
  // reload after the stated seconds (a script, not <meta http-equiv=refresh>, which screen
  // readers announce and axe flags)
  var later = document.querySelector("[data-reload-after]");
  if (later) {
    window.setTimeout(function () { window.location.reload(); },
                      1000 * Number(later.dataset.reloadAfter));
  }
  var box = document.getElementById("plan-job");
  if (!box) { return; }
  var delay = 500;
  function poll() {
    var request = new XMLHttpRequest();
    request.open("GET", box.dataset.url);
    request.setRequestHeader("Accept", "application/json");
    request.responseType = "json";
    request.onload = function () {
      var body = request.response;
      if (request.status === 200 && body) {
        var job = body.job || {};
        if (body.complete || job.state === "failed" ||
            (body.stage || "") !== (box.dataset.stage || "")) {
          window.location.reload();
          return;
        }
        if (job.seconds) {
          var s = document.getElementById("plan-job-seconds");
          if (s) { s.textContent = s.textContent.replace(/[\d.]+/, String(job.seconds)); }
        }
      }
      delay = Math.min(delay * 1.5, 5000);
      window.setTimeout(poll, delay);
    };
    request.onerror = function () { delay = Math.min(delay * 2, 5000); window.setTimeout(poll, delay); };
    request.send();
  }
  window.setTimeout(poll, delay);
}());
