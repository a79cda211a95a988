// The review form of the plan page: approving a revision on which changes were requested asks
// first (data-confirm-approve, in the reader's language). Declining keeps the page as it is;
// accepting ticks the form's own confirmation field, which the server requires without
// JavaScript too (service/plans/views.py confirmed_after_changes).
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("review-form");
    if (!form || !form.dataset.confirmApprove) { return; }
    var confirmed = document.getElementById("confirm-after-changes");
    form.addEventListener("submit", function (event) {
      var button = event.submitter;
      if (!button || button.value !== "approve" || confirmed.checked) { return; }
      if (window.confirm(form.dataset.confirmApprove)) {
        confirmed.checked = true;
      } else {
        event.preventDefault();
      }
    });
  });
})();
