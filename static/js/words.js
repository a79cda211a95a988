// The page's words for the page scripts (form.js, rows.js, progress.js): base.html hands them
// over translated as JSON (#script-words, service/web/locale.py script_words), so the scripts
// hold no English of their own beyond a fallback. Loaded before every page script.
(function () {
  "use strict";
  var el = document.getElementById("script-words");
  var WORDS = el ? JSON.parse(el.textContent) : {};
  window.buyrentWord = function (key, fallback, values) {
    return (WORDS[key] || fallback).replace(/%\((\w+)\)s/g, function (_, k) {
      return values[k];
    });
  };
}());
