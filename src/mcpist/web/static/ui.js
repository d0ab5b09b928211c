// MCPist UI: small progressive enhancements. Every page and form works without this file.
//   form[data-confirm="question"]          asks before submitting (also on a submit button)
//   form[data-live="URL"][data-target="#id"] posts the form to URL as the user types and puts the
//                                          HTML fragment it answers into #id (the role preview)
//   [data-copy="#id"]                      copies the text of #id to the clipboard
(function () {
  "use strict";

  function csrf() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.getAttribute("content") : "";
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var button = event.submitter;
    var question = (button && button.getAttribute("data-confirm")) || form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) {
      event.preventDefault();
    }
  });

  function live(form) {
    var url = form.getAttribute("data-live");
    var target = document.querySelector(form.getAttribute("data-target"));
    if (!url || !target) {
      return;
    }
    var timer = null;
    var sequence = 0;
    function refresh() {
      var mine = ++sequence;
      var body = new URLSearchParams(new FormData(form));
      fetch(url, {
        method: "POST",
        body: body,
        credentials: "same-origin",
        headers: { "X-CSRF-Token": csrf(), "X-UI-Fragment": "1" },
      })
        .then(function (response) {
          return response.ok ? response.text() : null;
        })
        .then(function (html) {
          if (html !== null && mine === sequence) {
            target.innerHTML = html;
            target.setAttribute("aria-busy", "false");
          }
        })
        .catch(function () {
          target.setAttribute("aria-busy", "false");
        });
    }
    form.addEventListener("input", function () {
      window.clearTimeout(timer);
      target.setAttribute("aria-busy", "true");
      timer = window.setTimeout(refresh, 250);
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button || !navigator.clipboard) {
      return;
    }
    var source = document.querySelector(button.getAttribute("data-copy"));
    if (source) {
      navigator.clipboard.writeText(source.textContent.trim()).then(function () {
        button.textContent = button.getAttribute("data-copied") || button.textContent;
      });
    }
  });

  document.querySelectorAll("form[data-live]").forEach(live);
})();
