// parcelgate console: live updates. The server sends an event "change"
// when the organization's orders or stock change; the page then fetches
// itself again and swaps in the new content. While someone is typing in
// a form the swap waits, and a button offers it instead.
(function () {
  "use strict";
  var src = document.body.getAttribute("data-live");
  if (!src || !window.EventSource || !window.fetch) return;
  var live = document.getElementById("live");
  var pending = false;

  function say(text, withButton) {
    live.textContent = text;
    if (withButton) {
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = "Show";
      b.addEventListener("click", function () { refresh(true); });
      live.appendChild(b);
    }
    live.hidden = false;
  }

  function typing() {
    var a = document.activeElement;
    return a && a.form && (a.tagName === "INPUT" || a.tagName === "TEXTAREA" || a.tagName === "SELECT");
  }

  function refresh(force) {
    if (!force && typing()) {
      pending = true;
      say("This page has changed.", true);
      return;
    }
    pending = false;
    fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) {
        if (r.redirected || !r.ok) { location.reload(); return null; }
        return r.text();
      })
      .then(function (html) {
        if (html === null) return;
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("main");
        var main = document.getElementById("main");
        if (!fresh || !main) return;
        var notice = main.querySelector(".notice");
        main.innerHTML = fresh.innerHTML;
        if (notice && !main.querySelector(".notice")) notice.remove();
        say("Updated " + new Date().toLocaleTimeString(), false);
        document.dispatchEvent(new CustomEvent("console:updated"));
      })
      .catch(function () { /* the next change tries again */ });
  }

  var es = new EventSource(src);
  var leaving = false;
  // A page being left (a link, a form such as sign-out) no longer listens.
  window.addEventListener("pagehide", function () { leaving = true; es.close(); });
  window.addEventListener("beforeunload", function () { leaving = true; es.close(); });
  es.addEventListener("change", function () { if (!leaving) refresh(false); });
  es.addEventListener("signed-out", function () {
    es.close();
    if (!leaving) location.reload();
  });
  document.addEventListener("focusout", function () {
    setTimeout(function () { if (pending && !typing()) refresh(false); }, 0);
  });
})();
